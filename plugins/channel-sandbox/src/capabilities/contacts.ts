import { NotFoundError, ValidationError, type ContactStatus, type ContactsCapability, type LidMapping } from '@parley/core';
import { USER_SUFFIX, jidUser } from '@parley/whatsapp-proto';
import type { SandboxDevice, SandboxSession } from '../sandbox-device.js';
import { lidOf } from '../sandbox-ids.js';
import { phoneNamespace } from '../sandbox-network.js';

/** State documents of a phone kept by this capability. */
const ADDRESS_BOOK = 'address-book';
const BLOCKLIST = 'blocklist';
const SESSIONS = 'sessions';

/** An end-to-end session with a peer, established by the first message received from it. */
export interface PeerSession {
  /** Unix seconds. */
  establishedAt: number;
}

/** This phone's block list (read-only: the device's cached copy). */
async function blocklistOf(device: SandboxDevice): Promise<readonly string[]> {
  return (await device.document<string[]>(BLOCKLIST)) ?? [];
}

/** Whether this phone has blocked `number`. */
export async function hasBlocked(device: SandboxDevice, number: string): Promise<boolean> {
  return (await blocklistOf(device)).includes(`${number}${USER_SUFFIX}`);
}

/** Whether the phone of instance `instanceId` has blocked this phone (read from that phone's stored state). */
async function blockedBy(device: SandboxDevice, instanceId: string): Promise<boolean> {
  return ((await device.ctx.storage.state.get<string[]>(phoneNamespace(instanceId), BLOCKLIST)) ?? []).includes(device.jid);
}

/** Records the session with a peer the first time a message from it arrives. */
export async function establishSession(device: SandboxDevice, number: string): Promise<void> {
  if ((await device.document<Record<string, PeerSession>>(SESSIONS))?.[number]) return;
  await device.exclusive(SESSIONS, async () => {
    const sessions = (await device.document<Record<string, PeerSession>>(SESSIONS)) ?? {};
    if (sessions[number]) return;
    await device.saveDocument(SESSIONS, { ...sessions, [number]: { establishedAt: Math.floor(device.network.now() / 1000) } });
  });
}

/**
 * Contacts on the sandbox network: an address book and a block list per phone (its state), LIDs
 * derived from numbers, and registration answered by the network's directory. A blocked number's
 * direct messages and calls never reach this phone, and it cannot see this phone's about text.
 */
export class SandboxContacts implements ContactsCapability {
  constructor(private readonly device: SandboxDevice) {}

  /** The instance holding a number, or 404 when no sandbox instance holds it. */
  private async peerInstance(jid: string): Promise<string> {
    const number = jidUser(jid);
    const instanceId = await this.device.network.instanceOf(number);
    if (!instanceId) throw new NotFoundError(`number ${number} on the sandbox network`, 'number_not_registered');
    return instanceId;
  }

  async save(jid: string, name: string): Promise<void> {
    this.device.requireConnected();
    const { state } = this.device.ctx.storage;
    await this.device.exclusive(ADDRESS_BOOK, async () => {
      const book = (await state.get<Record<string, string>>(this.device.namespace, ADDRESS_BOOK)) ?? {};
      book[jid] = name;
      await state.put(this.device.namespace, ADDRESS_BOOK, book);
    });
    const registered = await this.device.network.instanceOf(jidUser(jid));
    this.device.ctx.emit({ type: 'contacts.upsert', contacts: [{ id: jid, name, ...(registered ? { lid: lidOf(jidUser(jid)) } : {}) }] });
  }

  async remove(jid: string): Promise<void> {
    this.device.requireConnected();
    const { state } = this.device.ctx.storage;
    await this.device.exclusive(ADDRESS_BOOK, async () => {
      const book = (await state.get<Record<string, string>>(this.device.namespace, ADDRESS_BOOK)) ?? {};
      if (!(jid in book)) return;
      delete book[jid];
      await state.put(this.device.namespace, ADDRESS_BOOK, book);
    });
    this.device.ctx.emit({ type: 'contacts.delete', jids: [jid] });
  }

  async block(jid: string): Promise<void> {
    await this.setBlocked(jid, true);
  }

  async unblock(jid: string): Promise<void> {
    await this.setBlocked(jid, false);
  }

  private async setBlocked(jid: string, blocked: boolean): Promise<void> {
    this.device.requireConnected();
    if (jidUser(jid) === this.device.number) throw new ValidationError('path.number cannot be the instance\'s own number');
    // Only network users can be blocked; a number whose instance is gone can still be unblocked.
    if (blocked) await this.peerInstance(jid);
    await this.device.exclusive(BLOCKLIST, async () => {
      const list = await blocklistOf(this.device);
      const next = blocked ? (list.includes(jid) ? list : [...list, jid]) : list.filter((j) => j !== jid);
      if (next !== list) await this.device.saveDocument(BLOCKLIST, next);
    });
  }

  async blocked(): Promise<string[]> {
    this.device.requireConnected();
    return [...(await blocklistOf(this.device))];
  }

  /** The peer phone's about text; null when it has none or when it blocked this phone (as WhatsApp hides it). */
  async status(jid: string): Promise<ContactStatus> {
    this.device.requireConnected();
    const instanceId = await this.peerInstance(jid);
    if (await blockedBy(this.device, instanceId)) return { jid, status: null };
    const session = await this.device.ctx.storage.state.get<SandboxSession>(phoneNamespace(instanceId), 'session');
    return { jid, status: session?.about ?? null, ...(session?.about !== undefined && session.aboutSetAt ? { setAt: session.aboutSetAt } : {}) };
  }

  async clearSession(jid: string): Promise<void> {
    this.device.requireConnected();
    await this.peerInstance(jid);
    const number = jidUser(jid);
    await this.device.exclusive(SESSIONS, async () => {
      const { [number]: dropped, ...rest } = (await this.device.document<Record<string, PeerSession>>(SESSIONS)) ?? {};
      if (dropped) await this.device.saveDocument(SESSIONS, rest);
    });
  }

  async resolveLids(lids: string[]): Promise<LidMapping[]> {
    this.device.requireConnected();
    const byLid = new Map((await this.device.network.numbers()).map((number) => [lidOf(number), `${number}${USER_SUFFIX}`]));
    return lids.map((lid) => ({ lid, jid: byLid.get(lid) ?? null }));
  }

  async isRegistered(number: string): Promise<{ registered: boolean; jid?: string }> {
    this.device.requireConnected();
    return (await this.device.network.instanceOf(number)) ? { registered: true, jid: `${number}${USER_SUFFIX}` } : { registered: false };
  }
}
