import { getBinaryNodeChild } from '@whiskeysockets/baileys';
import type { Feature, Network } from '../network/network.js';
import { deviceOf, IqError } from '../network/network.js';
import { requireSession } from './prekeys.js';
import { announceDevices } from './device-list.js';

/**
 * The small iqs every client sends after login: passive/active, keep-alive pings, AB props, and the
 * companion's own logout (`remove-companion-device`). Block list and privacy settings are privacy.ts's,
 * presence is presence.ts's.
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
  };
}
