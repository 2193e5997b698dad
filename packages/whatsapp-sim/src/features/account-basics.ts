import { getBinaryNodeChild } from '@whiskeysockets/baileys';
import type { Feature, Network } from '../network/network.js';
import { deviceOf, IqError } from '../network/network.js';
import { requireSession } from './prekeys.js';
import { announceDevices } from './device-list.js';

/** Privacy settings a new account has (WhatsApp's defaults: everyone sees last seen, photo, about…). */
const DEFAULT_PRIVACY: Record<string, string> = {
  last: 'all', online: 'all', profile: 'all', status: 'contacts', readreceipts: 'all', groupadd: 'all', calladd: 'all', messages: 'all',
};

/**
 * The small iqs every client sends after login: passive/active, keep-alive pings, AB props, blocklist,
 * privacy settings, and the companion's own logout (`remove-companion-device`).
 */
export function accountBasicsFeature(network: Network): Feature {
  return {
    iq: {
      passive: (connection) => {
        requireSession(network, connection);
        return [];
      },
      'w:p': () => [],
      abt: (connection) => {
        requireSession(network, connection);
        return [{ tag: 'props', attrs: { protocol: '1', hash: 'sim-1' }, content: [] }];
      },
      blocklist: (connection) => {
        requireSession(network, connection);
        return [{ tag: 'list', attrs: {}, content: [] }];
      },
      privacy: (connection, iq) => {
        requireSession(network, connection);
        if (iq.attrs.type === 'set') return [];
        return [{ tag: 'privacy', attrs: {}, content: Object.entries(DEFAULT_PRIVACY).map(([name, value]) => ({ tag: 'category', attrs: { name, value } })) }];
      },
      'md/remove-companion-device': (connection, iq) => {
        const { account, device } = requireSession(network, connection);
        const target = getBinaryNodeChild(iq, 'remove-companion-device')?.attrs.jid;
        if (!target || network.accountOf(target) !== account) throw new IqError(400, 'bad-request');
        const removed = account.companions.get(deviceOf(target) || device.id);
        if (removed) {
          account.companions.delete(removed.id);
          announceDevices(network, account, 'remove', removed);
        }
        return [];
      },
    },
    stanzas: {
      presence: () => {},
      ib: () => {},
    },
  };
}
