import { createHash } from 'node:crypto';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { stanzaId, unixNow } from '../network/network.js';
import type { Network } from '../network/network.js';
import type { Account, CompanionDevice } from '../network/model.js';
import { keyIndexList } from './usync.js';

/**
 * Tells clients that an account's device list changed (`<notification type="devices">` with `<add>` or
 * `<remove>`), so a peer's cached device list (Baileys keeps one per user for minutes) includes a newly
 * linked companion, and drops the sessions of a removed one (Baileys Socket/messages-recv.js
 * handleDevicesNotification). The simulator tells every companion on the network, not only the account's
 * contacts: a simplification that costs nothing in a test network.
 */
export function announceDevices(network: Network, account: Account, change: 'add' | 'remove', device: CompanionDevice): void {
  const ts = Math.floor(Date.now() / 1000);
  const deviceHash = createHash('sha256').update([...account.companions.keys()].join(',')).digest('base64').slice(0, 8);
  const content: BinaryNode[] = [{ tag: 'device', attrs: { jid: device.jid, 'key-index': String(device.keyIndex) } }];
  if (change === 'add') content.push({ tag: 'key-index-list', attrs: { ts: String(ts) }, content: keyIndexList(account, ts) });
  for (const other of network.accounts.values()) {
    for (const companion of other.companions.values()) {
      if (companion === device) continue;
      network.deliver(companion, {
        tag: 'notification', attrs: { from: `${account.number}@s.whatsapp.net`, type: 'devices', id: stanzaId(), t: unixNow() },
        content: [{ tag: change, attrs: { device_hash: deviceHash }, content }],
      });
    }
  }
}
