import { getBinaryNodeChild, getBinaryNodeChildren } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { IqError, SERVER, splitJid, stanzaId, unixNow } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import type { Account } from '../network/model.js';
import { DEFAULT_PRIVACY } from '../network/model.js';
import { SimError } from '../network/errors.js';
import { requireSession } from './prekeys.js';

/**
 * The values each privacy category takes (whatsmeow types/user.go: PrivacySetting values all, contacts,
 * contact_blacklist, match_last_seen, known, none; Baileys Types/Chat.d.ts WAPrivacyValue and friends
 * narrow them per category).
 */
export const PRIVACY_VALUES: Readonly<Record<string, readonly string[]>> = {
  last: ['all', 'contacts', 'contact_blacklist', 'none'],
  online: ['all', 'match_last_seen'],
  profile: ['all', 'contacts', 'contact_blacklist', 'none'],
  status: ['all', 'contacts', 'contact_blacklist', 'none'],
  readreceipts: ['all', 'none'],
  groupadd: ['all', 'contacts', 'contact_blacklist'],
  calladd: ['all', 'known'],
  messages: ['all', 'contacts'],
};

/** Checks one setting; the refusal names it (400 invalid_privacy). */
export function checkPrivacy(name: string, value: unknown): void {
  const values = PRIVACY_VALUES[name];
  if (!values) throw new SimError(400, 'invalid_privacy', `the privacy categories are ${Object.keys(DEFAULT_PRIVACY).join(', ')}`, { field: `settings.${name}`, name });
  if (typeof value !== 'string' || !values.includes(value)) throw new SimError(400, 'invalid_privacy', `${name} must be one of ${values.join(', ')}`, { field: `settings.${name}`, name, value });
}

/** The account's block list as the server answers it: entries keyed by LID. */
function listNode(network: Network, account: Account): BinaryNode {
  const items = [...account.social.blocked].flatMap((number) => {
    const blocked = network.accounts.get(number);
    return blocked ? [{ tag: 'item', attrs: { jid: `${blocked.lid}@lid` } }] : [];
  });
  return { tag: 'list', attrs: { dhash: String(account.social.blocked.size) }, content: items };
}

/** Tells the account's companions that its block list changed (Baileys emits blocklist.update for it). */
function announceBlock(network: Network, account: Account, target: Account, action: 'block' | 'unblock'): void {
  for (const device of account.companions.values()) {
    network.deliver(device, {
      tag: 'notification', attrs: { from: SERVER, type: 'account_sync', id: stanzaId(), t: unixNow() },
      content: [{ tag: 'blocklist', attrs: {}, content: [{ tag: 'item', attrs: { jid: `${target.lid}@lid`, action } }] }],
    });
  }
}

/** The phone of `account` blocks or unblocks `target`; its companions are told. */
export function changeBlock(network: Network, account: Account, target: Account, action: 'block' | 'unblock'): void {
  if (account === target) throw new SimError(400, 'invalid_block', 'an account cannot block itself', { field: 'number', number: target.number });
  if (action === 'block') account.social.blocked.add(target.number);
  else account.social.blocked.delete(target.number);
  announceBlock(network, account, target, action);
}

/**
 * `xmlns="blocklist"` and `xmlns="privacy"`, a client's own settings.
 * - The block list is keyed by LID: a get answers `<list><item jid="lid@lid"/></list>` (WA Web's blocklist
 *   collection and whatsmeow's GetBlocklist; whatsapp-rust PR #707 observed `<item jid=…@lid>`). A block names
 *   the LID and the number (`jid="lid@lid" pn_jid="number@s.whatsapp.net"`, Baileys updateBlockStatus;
 *   WhatsApp refuses a block without `pn_jid`, Baileys PR #2265), an unblock the LID; both are answered with
 *   the new list, as whatsmeow's UpdateBlocklist expects. A blocked account's messages, calls, presence and
 *   chat states no longer reach the blocker's devices, and the blocker's presence no longer reaches it.
 * - Privacy settings: a get answers `<privacy><category name value/>…</privacy>`; a set of an unknown
 *   category or value is refused with 400 bad-request and changes nothing.
 */
export function privacyFeature(network: Network): Feature {
  return {
    iq: {
      blocklist: (connection, iq) => {
        const { account } = requireSession(network, connection);
        if (iq.attrs.type === 'set') {
          const item = getBinaryNodeChild(iq, 'item');
          const action = item?.attrs.action;
          const [user, server] = splitJid(item?.attrs.jid ?? '');
          const target = server === 'lid' ? network.accountOf(`${user}@lid`) : undefined;
          if ((action !== 'block' && action !== 'unblock') || !target) throw new IqError(400, 'bad-request');
          if (action === 'block' && network.accountOf(item?.attrs.pn_jid ?? '') !== target) throw new IqError(400, 'bad-request');
          if (target === account) throw new IqError(406, 'not-acceptable');
          changeBlock(network, account, target, action);
        }
        return [listNode(network, account)];
      },
      privacy: (connection, iq) => {
        const { account } = requireSession(network, connection);
        if (iq.attrs.type === 'set') {
          const categories = getBinaryNodeChildren(getBinaryNodeChild(iq, 'privacy'), 'category');
          if (categories.length === 0) throw new IqError(400, 'bad-request');
          for (const { attrs } of categories) {
            try {
              checkPrivacy(attrs.name ?? '', attrs.value);
            } catch {
              throw new IqError(400, 'bad-request');
            }
          }
          for (const { attrs } of categories) account.social.privacy[attrs.name!] = attrs.value!;
          return [];
        }
        const categories = Object.entries(account.social.privacy).map(([name, value]) => ({ tag: 'category', attrs: { name, value } }));
        return [{ tag: 'privacy', attrs: {}, content: categories }];
      },
    },
  };
}
