import { type ContactStatus, type ContactsCapability, type LidMapping } from '@parley/core';
import { jidUser } from '@parley/whatsapp-proto';
import { jidDecode } from '@whiskeysockets/baileys';
import type { AdapterRuntime } from '../runtime.js';
import type { BaileysSocket } from '../socket.js';
import { upstream } from '../util/errors.js';
import { isLidJid, normalizeJid } from '../util/jids.js';

/** Every device JID of a contact (phone-number and LID forms) whose signal session exists. */
async function deviceJids(socket: BaileysSocket, jid: string): Promise<string[]> {
  const pn = normalizeJid(jid);
  const lid = isLidJid(pn) ? pn : await socket.signalRepository.lidMapping.getLIDForPN(pn);
  const users = [pn, ...(lid && lid !== pn ? [normalizeJid(lid)] : [])];
  const out = new Set<string>();
  for (const user of users) {
    const decoded = jidDecode(user);
    if (!decoded) continue;
    const stored = await socket.authState.keys.get('device-list', [decoded.user]);
    const devices = new Set(['0', ...(stored[decoded.user] ?? [])]);
    for (const device of devices) out.add(device === '0' ? user : `${decoded.user}:${device}@${decoded.server}`);
  }
  return [...out];
}

/** The phone-number JIDs of the LIDs whose mapping the auth state knows, by normalized LID. */
async function pnByLid(socket: BaileysSocket, lids: string[]): Promise<Map<string, string>> {
  if (lids.length === 0) return new Map();
  const found = (await upstream('the LID lookup', () => socket.signalRepository.lidMapping.getPNsForLIDs(lids))) ?? [];
  return new Map(found.map((m) => [normalizeJid(m.lid), normalizeJid(m.pn)]));
}

/** Contacts (spec 4.8 registered, 4.9) over Baileys. */
export function contactsCapability(runtime: AdapterRuntime): ContactsCapability {
  const socket = () => runtime.connection.openSocket();
  return {
    // Baileys reports none of the instance's own app-state patches: the address-book change WhatsApp took is emitted here.
    async save(jid, name) {
      const s = socket();
      await upstream('the contact update', () => s.addOrEditContact(jid, { fullName: name, saveOnPrimaryAddressbook: true }));
      runtime.context.emit({ type: 'contacts.upsert', contacts: [{ id: jid, name }] });
    },
    async remove(jid) {
      const s = socket();
      await upstream('the contact removal', () => s.removeContact(jid));
      runtime.context.emit({ type: 'contacts.delete', jids: [jid] });
    },
    async block(jid) {
      const s = socket();
      await upstream('the block', () => s.updateBlockStatus(jid, 'block'));
    },
    async unblock(jid) {
      const s = socket();
      await upstream('the unblock', () => s.updateBlockStatus(jid, 'unblock'));
    },
    async blocked() {
      const s = socket();
      const list = (await upstream('the block list query', () => s.fetchBlocklist())).filter((j): j is string => typeof j === 'string');
      // WhatsApp keys the block list by LID (`<item jid="…@lid">`): a contact blocked by number is listed by the
      // number's JID when the LID mapping is known, as the other channels list it; an unknown LID stays as it is.
      const byLid = await pnByLid(s, list.filter(isLidJid));
      return list.map((jid) => byLid.get(normalizeJid(jid)) ?? jid);
    },
    async status(jid): Promise<ContactStatus> {
      const s = socket();
      const results = (await upstream('the status query', () => s.fetchStatus(jid))) ?? [];
      const entry = results[0] as { status?: { status?: string | null; setAt?: Date } | null } | undefined;
      const setAt = entry?.status?.setAt instanceof Date ? Math.floor(entry.status.setAt.getTime() / 1000) : 0;
      // Baileys' USyncStatusProtocol answers '' for an about text the contact's privacy hides (WhatsApp's code 401): null, as unset.
      return { jid, status: entry?.status?.status || null, ...(setAt > 0 ? { setAt } : {}) };
    },
    async clearSession(jid) {
      const s = socket();
      const jids = await deviceJids(s, jid);
      // Deleting the sessions from the auth state makes the next message start a fresh one.
      await s.signalRepository.deleteSession(jids);
    },
    async resolveLids(lids): Promise<LidMapping[]> {
      const s = socket();
      const byLid = await pnByLid(s, lids);
      return lids.map((lid) => ({ lid, jid: byLid.get(normalizeJid(lid)) ?? null }));
    },
    async isRegistered(number) {
      const s = socket();
      const digits = jidUser(number).replace(/\D/g, '');
      const [result] = (await upstream('the registration check', () => s.onWhatsApp(digits))) ?? [];
      return result?.exists ? { registered: true, jid: result.jid } : { registered: false };
    },
  };
}
