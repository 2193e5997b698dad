import { CapabilityNotSupportedError, ConflictError, NotFoundError, ValidationError, type ChatsCapability, type PrivacySettings } from '@parley/core';
import { USER_SUFFIX, isGroupJid, jidUser } from '@parley/whatsapp-proto';
import type { SandboxDevice } from '../sandbox-device.js';
import type { EphemeralPacket } from '../sandbox-packets.js';
import { forgetLabelledChat } from './labels.js';

/** Privacy settings of a fresh sandbox account (WhatsApp's categories and defaults). */
export const DEFAULT_PRIVACY: PrivacySettings = {
  readreceipts: 'all', profile: 'all', status: 'contacts', online: 'all', last: 'all', groupadd: 'all', calladd: 'all', messages: 'all',
};

/** Disappearing-message timers WhatsApp offers: off, 24 hours, 7 days, 90 days (seconds). */
export const DISAPPEARING_TIMERS = [0, 86_400, 604_800, 7_776_000] as const;

/** WhatsApp pins at most this many chats. */
export const MAX_PINNED_CHATS = 3;

const PINNED = 'pinned';
export const PRESENCE_SUBSCRIPTIONS = 'presence-subscriptions';

/** The other side of a direct chat set a disappearing timer: this phone's chat follows it. */
export function receiveEphemeral(device: SandboxDevice, packet: EphemeralPacket): void {
  device.ctx.emit({ type: 'chats.upsert', chats: [{ id: `${packet.from}${USER_SUFFIX}`, ephemeralExpiration: packet.expiration }] });
}

/**
 * Chat management on the sandbox: changes are emitted as chat events (the server's projector stores
 * them); reading a chat sends read receipts to the senders; a disappearing timer reaches the peer's
 * chat too; at most three chats are pinned; subscribing to a contact's presence answers its current
 * presence as a `presence` event.
 */
export class SandboxChats implements ChatsCapability {
  constructor(private readonly device: SandboxDevice) {}

  async markRead(jid: string, read: boolean): Promise<void> {
    this.device.requireConnected();
    if (read) {
      await this.device.readChat(jid);
      this.device.ctx.emit({ type: 'chats.upsert', chats: [{ id: jid, unreadCount: 0 }] });
      return;
    }
    // Marking unread shows the badge without touching a count that is already there.
    const chat = await this.device.ctx.storage.chats.get(this.device.ctx.instanceId, jid);
    this.device.ctx.emit({ type: 'chats.upsert', chats: [{ id: jid, unreadCount: Math.max(chat?.unreadCount ?? 0, 1) }] });
  }

  async pin(jid: string, pinned: boolean): Promise<void> {
    this.device.requireConnected();
    const { state } = this.device.ctx.storage;
    await this.device.exclusive(PINNED, async () => {
      const list = (await state.get<string[]>(this.device.namespace, PINNED)) ?? [];
      if (pinned === list.includes(jid)) return;
      if (pinned && list.length >= MAX_PINNED_CHATS) {
        throw new ConflictError(`at most ${MAX_PINNED_CHATS} chats can be pinned: unpin one first`, 'pin_limit');
      }
      await state.put(this.device.namespace, PINNED, pinned ? [...list, jid] : list.filter((j) => j !== jid));
    });
    this.device.ctx.emit({ type: 'chats.upsert', chats: [{ id: jid, pinned }] });
  }

  async delete(jid: string): Promise<void> {
    this.device.requireConnected();
    const { state } = this.device.ctx.storage;
    await this.device.exclusive(PINNED, async () => {
      const list = (await state.get<string[]>(this.device.namespace, PINNED)) ?? [];
      if (list.includes(jid)) await state.put(this.device.namespace, PINNED, list.filter((j) => j !== jid));
    });
    await this.device.forgetUnread(jid);
    await forgetLabelledChat(this.device, jid);
    this.device.ctx.emit({ type: 'chats.delete', jids: [jid] });
  }

  async subscribePresence(jid: string): Promise<void> {
    this.device.requireConnected();
    const number = isGroupJid(jid) ? null : jidUser(jid);
    if (number !== null && !(await this.device.network.instanceOf(number))) {
      throw new NotFoundError(`number ${number} on the sandbox network`, 'number_not_registered');
    }
    const { state } = this.device.ctx.storage;
    await this.device.exclusive(PRESENCE_SUBSCRIPTIONS, async () => {
      const list = (await state.get<string[]>(this.device.namespace, PRESENCE_SUBSCRIPTIONS)) ?? [];
      if (!list.includes(jid)) await state.put(this.device.namespace, PRESENCE_SUBSCRIPTIONS, [...list, jid]);
    });
    // The network answers a subscription with the contact's current presence, then reports changes.
    if (number !== null) {
      this.device.network.watch(this.device.number, number);
      this.device.ctx.emit({ type: 'presence', jid, status: this.device.network.isOnline(number) ? 'available' : 'unavailable' });
    }
  }

  async setDisappearing(jid: string, expiration: number): Promise<void> {
    this.device.requireConnected();
    if (!(DISAPPEARING_TIMERS as readonly number[]).includes(expiration)) {
      throw new ValidationError(`body.expiration must be one of ${DISAPPEARING_TIMERS.join(', ')}`);
    }
    if (isGroupJid(jid)) throw new CapabilityNotSupportedError('sandbox', 'disappearing messages in groups');
    this.device.ctx.emit({ type: 'chats.upsert', chats: [{ id: jid, ephemeralExpiration: expiration }] });
    await this.device.network.send(jidUser(jid), { kind: 'ephemeral', from: this.device.number, expiration });
  }

  async privacy(): Promise<PrivacySettings> {
    this.device.requireConnected();
    return (await this.device.ctx.storage.state.get<PrivacySettings>(this.device.namespace, 'privacy')) ?? { ...DEFAULT_PRIVACY };
  }

  /** Kept in the phone's state; the sandbox network applies none of them. */
  async setPrivacy(settings: PrivacySettings): Promise<PrivacySettings> {
    const next = { ...(await this.privacy()), ...settings };
    await this.device.ctx.storage.state.put(this.device.namespace, 'privacy', next);
    return next;
  }
}
