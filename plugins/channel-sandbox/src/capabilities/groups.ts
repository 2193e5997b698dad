import type { Group, GroupsCapability, ParticipantResult } from '@parley/core';
import type { SandboxDevice } from '../sandbox-device.js';
import { SandboxGroupFamily } from './group-family.js';

/**
 * Groups of a sandbox phone: real groups of the sandbox network, shared with the other members'
 * instances. Every operation needs the phone connected.
 */
export class SandboxGroups extends SandboxGroupFamily implements GroupsCapability {
  constructor(device: SandboxDevice, pictureUrl: (id: string, sha: string) => string) {
    super(device, pictureUrl, 'group');
  }

  async list(): Promise<Group[]> {
    return (await this.directory.list(this.actor(), 'group')).map((g) => this.directory.groupView(g));
  }

  async get(groupJid: string): Promise<Group> {
    return this.directory.groupView(await this.directory.get(this.actor(), groupJid, 'group'));
  }

  async create(subject: string, participants: string[]): Promise<Group> {
    return this.directory.groupView(await this.directory.create(this.actor(), 'group', { subject, desc: '', participants }));
  }

  addParticipants(groupJid: string, participants: string[]): Promise<ParticipantResult[]> {
    return this.directory.addParticipants(this.actor(), groupJid, 'group', participants);
  }

  promote(groupJid: string, participants: string[]): Promise<ParticipantResult[]> {
    return this.directory.setRole(this.actor(), groupJid, 'group', participants, 'promote');
  }

  demote(groupJid: string, participants: string[]): Promise<ParticipantResult[]> {
    return this.directory.setRole(this.actor(), groupJid, 'group', participants, 'demote');
  }

  async removePicture(groupJid: string): Promise<void> {
    await this.directory.setPicture(this.actor(), groupJid, 'group', null);
  }
}
