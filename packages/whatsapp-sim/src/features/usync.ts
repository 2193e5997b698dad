import { Curve, getBinaryNodeChild, getBinaryNodeChildren, proto } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { IqError, splitJid } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import type { Account } from '../network/model.js';
import { requireSession } from './prekeys.js';
import { visibleTo } from './profile.js';

/** Most users one usync query may ask about. */
const MAX_USERS = 500;

/**
 * The phone-signed list of the account's valid key indexes (`<key-index-list>`). Baileys 7.0.0-rc14 keeps
 * it without checking the signature; the `6, 2` prefix follows the ADV prefixes' numbering (6,0 account,
 * 6,1 device) and is an assumption, not a verified constant.
 */
export function keyIndexList(account: Account, ts: number): Buffer {
  const details = proto.ADVKeyIndexList.encode({
    rawId: account.advRawId, timestamp: ts, currentIndex: account.nextKeyIndex - 1,
    validIndexes: [...account.companions.values()].map((d) => d.keyIndex), accountType: proto.ADVEncryptionType.E2EE,
  }).finish();
  const { public: key, private: priv } = account.phone.identity;
  const signature = Curve.sign(priv, Buffer.concat([Buffer.from([6, 2]), details]));
  return Buffer.from(proto.ADVSignedKeyIndexList.encode({ details, accountSignature: signature, accountSignatureKey: key }).finish());
}

function devices(account: Account): BinaryNode {
  const ts = Math.floor(Date.now() / 1000);
  const list: BinaryNode[] = [{ tag: 'device', attrs: { id: '0' } }];
  for (const device of account.companions.values()) list.push({ tag: 'device', attrs: { id: String(device.id), 'key-index': String(device.keyIndex) } });
  return { tag: 'devices', attrs: {}, content: [
    { tag: 'device-list', attrs: {}, content: list },
    { tag: 'key-index-list', attrs: { ts: String(ts) }, content: keyIndexList(account, ts) },
  ] };
}

/**
 * The about text as usync's `status` protocol answers it: `<status t>text</status>`, or empty with
 * `code="401"` when the owner's `status` privacy hides it (Baileys USyncStatusProtocol reads both).
 */
function statusNode(account: Account, viewer: Account): BinaryNode {
  if (!visibleTo(account, viewer, 'status')) return { tag: 'status', attrs: { code: '401' } };
  const { status, statusAt } = account.social;
  return { tag: 'status', attrs: { t: String(statusAt) }, ...(status ? { content: Buffer.from(status, 'utf8') } : {}) };
}

/**
 * `xmlns="usync"`: who is on WhatsApp (`contact`), each user's devices (`devices`, with the phone-signed
 * key-index list), their LID (`lid`) and about text (`status`). Users the network does not know are answered `contact type="out"`
 * and left out of device lists. A number in the form its account is not filed under (NINTH_DIGIT) is answered with the
 * account's JID.
 */
export function usyncFeature(network: Network): Feature {
  return {
    iq: {
      usync: (connection, iq) => {
        const { account: viewer } = requireSession(network, connection);
        const usync = getBinaryNodeChild(iq, 'usync');
        const query = getBinaryNodeChild(usync, 'query');
        const protocols = new Set(Array.isArray(query?.content) ? query.content.map((n) => n.tag) : []);
        const users = getBinaryNodeChildren(getBinaryNodeChild(usync, 'list'), 'user');
        if (!usync || users.length > MAX_USERS) throw new IqError(400, 'bad-request');
        const results: BinaryNode[] = [];
        for (const user of users) {
          const phone = getBinaryNodeChild(user, 'contact')?.content;
          const asked = user.attrs.jid ?? (phone ? `${Buffer.from(phone as Uint8Array).toString().replace(/^\+/, '')}@s.whatsapp.net` : '');
          const [userPart, server] = splitJid(asked);
          // Who is on WhatsApp (`contact`) answers the account's own JID for either form of its number (NINTH_DIGIT);
          // the other protocols are about the JID asked, which names no account when it is the other form.
          const filed = network.accountOf(asked);
          const account = protocols.has('contact') ? network.lookup(asked) : filed;
          const jid = account && !filed ? `${account.number}@s.whatsapp.net` : `${userPart}@${server || 's.whatsapp.net'}`;
          const content: BinaryNode[] = [];
          if (protocols.has('contact')) content.push({ tag: 'contact', attrs: { type: account ? 'in' : 'out' } });
          if (account && protocols.has('devices')) content.push(devices(account));
          if (account && protocols.has('lid') && server !== 'lid') content.push({ tag: 'lid', attrs: { val: `${account.lid}@lid` } });
          if (account && protocols.has('status')) content.push(statusNode(account, viewer));
          if (!account && !protocols.has('contact')) continue;
          results.push({ tag: 'user', attrs: { jid }, content });
        }
        return [{ tag: 'usync', attrs: { ...usync.attrs }, content: [
          { tag: 'result', attrs: {}, content: [...protocols].map((tag) => ({ tag, attrs: {} })) },
          { tag: 'list', attrs: {}, content: results },
        ] }];
      },
    },
  };
}
