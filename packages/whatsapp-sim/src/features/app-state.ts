import { decodePatches, encodeSyncdPatch, getBinaryNodeChild, getBinaryNodeChildren, newLTHashState, proto } from '@whiskeysockets/baileys';
import type { BinaryNode, WAPatchCreate, WAPatchName } from '@whiskeysockets/baileys';
import { IqError, stanzaId, unixNow, SERVER } from '../network/network.js';
import type { ClientConnection } from '../transport/connection.js';
import { silentLogger } from '../network/silent-logger.js';
import type { Feature, Network } from '../network/network.js';
import type { Account, PhoneAppState } from '../network/model.js';
import { SimError } from '../network/errors.js';
import { requireSession } from './prekeys.js';
import { applySyncAction } from './chat-state.js';

/** A change the phone makes to its app state, as WhatsApp's apps sync it to companions. */
export type AppStateChange =
  /**
   * A saved contact, indexed by its number's JID or (as WhatsApp's apps now often save them) by its LID; the
   * action names the other form when the phone knows it (`lidJid` beside a number, `pnJid` beside a LID).
   */
  | { kind: 'contact'; jid: string; fullName: string; firstName?: string; lidJid?: string; pnJid?: string }
  | { kind: 'archive'; jid: string; archived: boolean }
  | { kind: 'pin'; jid: string; pinned: boolean }
  | { kind: 'mute'; jid: string; muteEndTimestamp: number | undefined }
  | { kind: 'read'; jid: string; read: boolean }
  | { kind: 'label'; id: string; name: string; color: number }
  | { kind: 'label-chat'; id: string; jid: string; labeled: boolean }
  | { kind: 'push-name'; name: string };

/** Most patches one collection keeps (each change is one patch). */
export const MAX_PATCHES = 10_000;

/**
 * Each change's syncd index, action and collection, as WhatsApp's clients write them (Baileys
 * Utils/chat-utils.js chatModificationToAppPatch and processSyncAction read the same shapes; whatsmeow
 * appstate/keys.go lists the collections: contacts in critical_unblock_low, archive and pin in
 * regular_low, mute in regular_high, labels in regular).
 */
function patchOf(change: AppStateChange, timestamp: number): WAPatchCreate {
  const SET = proto.SyncdMutation.SyncdOperation.SET;
  switch (change.kind) {
    case 'contact':
      return { type: 'critical_unblock_low', index: ['contact', change.jid], apiVersion: 2, operation: SET,
        syncAction: { timestamp, contactAction: {
          fullName: change.fullName, firstName: change.firstName, lidJid: change.lidJid, pnJid: change.pnJid, saveOnPrimaryAddressbook: true,
        } } };
    case 'archive':
      return { type: 'regular_low', index: ['archive', change.jid], apiVersion: 3, operation: SET,
        syncAction: { timestamp, archiveChatAction: { archived: change.archived, messageRange: { lastMessageTimestamp: timestamp } } } };
    case 'pin':
      return { type: 'regular_low', index: ['pin_v1', change.jid], apiVersion: 5, operation: SET, syncAction: { timestamp, pinAction: { pinned: change.pinned } } };
    case 'mute':
      return { type: 'regular_high', index: ['mute', change.jid], apiVersion: 2, operation: SET,
        syncAction: { timestamp, muteAction: { muted: change.muteEndTimestamp !== undefined, muteEndTimestamp: change.muteEndTimestamp } } };
    case 'read':
      // whatsmeow appstate/keys.go IndexMarkChatAsRead, in regular_low; Baileys chatModificationToAppPatch markRead.
      return { type: 'regular_low', index: ['markChatAsRead', change.jid], apiVersion: 3, operation: SET,
        syncAction: { timestamp, markChatAsReadAction: { read: change.read, messageRange: { lastMessageTimestamp: timestamp } } } };
    case 'label':
      return { type: 'regular', index: ['label_edit', change.id], apiVersion: 3, operation: SET,
        syncAction: { timestamp, labelEditAction: { name: change.name, color: change.color, deleted: false } } };
    case 'label-chat':
      return { type: 'regular', index: ['label_jid', change.id, change.jid], apiVersion: 3, operation: SET,
        syncAction: { timestamp, labelAssociationAction: { labeled: change.labeled } } };
    case 'push-name':
      return { type: 'critical_block', index: ['setting_pushName'], apiVersion: 1, operation: SET, syncAction: { timestamp, pushNameSetting: { name: change.name } } };
  }
}

const FIELDS: Record<AppStateChange['kind'], Record<string, 'string' | 'boolean' | 'number' | 'number?' | 'string?'>> = {
  contact: { jid: 'string', fullName: 'string', firstName: 'string?', lidJid: 'string?', pnJid: 'string?' },
  archive: { jid: 'string', archived: 'boolean' },
  pin: { jid: 'string', pinned: 'boolean' },
  mute: { jid: 'string', muteEndTimestamp: 'number?' },
  read: { jid: 'string', read: 'boolean' },
  label: { id: 'string', name: 'string', color: 'number' },
  'label-chat': { id: 'string', jid: 'string', labeled: 'boolean' },
  'push-name': { name: 'string' },
};

/** Refuses a change whose kind or fields are not what it needs (400 invalid_change, naming the field). */
function check(change: AppStateChange, index: number): void {
  const fields = change && typeof change === 'object' ? FIELDS[change.kind] : undefined;
  if (!fields) throw new SimError(400, 'invalid_change', 'kind must be contact, archive, pin, mute, read, label, label-chat or push-name', { field: `changes[${index}].kind` });
  for (const [name, type] of Object.entries(fields)) {
    const value = (change as unknown as Record<string, unknown>)[name];
    if (value === undefined && type.endsWith('?')) continue;
    if (typeof value !== type.replace('?', '') || (typeof value === 'string' && (value.length === 0 || value.length > 256))) {
      throw new SimError(400, 'invalid_change', `${change.kind}.${name} must be a ${type.replace('?', '')}`, { field: `changes[${index}].${name}` });
    }
  }
}

/** The account's app-state sync key as the phone shares it with companions (`AppStateSyncKeyData`). */
export function appStateKeyData(account: Account): proto.Message.IAppStateSyncKeyData {
  return { keyData: account.appState.keyData, fingerprint: { rawId: account.advRawId, currentIndex: 0, deviceIndexes: [0] }, timestamp: Date.now() };
}

/** The key the phone shares with its companions (APP_STATE_SYNC_KEY_SHARE), as a protocol message. */
export function keyShareMessage(account: Account): proto.IMessage {
  return {
    protocolMessage: {
      type: proto.Message.ProtocolMessage.Type.APP_STATE_SYNC_KEY_SHARE,
      appStateSyncKeyShare: { keys: [{ keyId: { keyId: account.appState.keyId }, keyData: appStateKeyData(account) }] },
    },
  };
}

/**
 * The phone changes its app state: each change becomes one patch, encoded and MAC'd under the shared key
 * by Baileys' own encodeSyncdPatch (what a WhatsApp client does for its own changes), appended to its
 * collection; the companions are told with `<notification type="server_sync">` naming the collection, on
 * which they fetch the new patches (Baileys messages-recv.js: resyncAppState).
 */
export async function applyChanges(network: Network, account: Account, changes: AppStateChange[]): Promise<Array<{ collection: string; version: number }>> {
  if (!Array.isArray(changes) || changes.length === 0 || changes.length > 500) throw new SimError(400, 'invalid_change', 'changes must be 1 to 500 changes', { field: 'changes' });
  // All are checked before any is applied: a refused request changes nothing.
  changes.forEach((change, index) => check(change, index));
  const applied = await append(account, changes);
  announce(network, account, new Set(applied.map((a) => a.collection)));
  return applied;
}

/** Appends each change as one patch to its collection, and applies it to the phone's own state. */
async function append(account: Account, changes: AppStateChange[]): Promise<Array<{ collection: string; version: number }>> {
  const applied: Array<{ collection: string; version: number }> = [];
  const getKey = keyOf(account);
  for (const change of changes) {
    const create = patchOf(change, Date.now());
    const collection = collectionOf(account.appState, create.type);
    if (collection.patches.length >= MAX_PATCHES) throw new SimError(409, 'app_state_full', `${create.type} has ${MAX_PATCHES} patches`);
    const { patch, state } = await encodeSyncdPatch(create, account.appState.keyId.toString('base64'), collection.state, getKey);
    collection.patches.push(Buffer.from(proto.SyncdPatch.encode({ ...patch, version: { version: state.version } }).finish()));
    collection.state = state;
    applySyncAction(account, create.index, create.syncAction, create.syncAction.timestamp as number);
    applied.push({ collection: create.type, version: state.version });
  }
  return applied;
}

/**
 * A phone's `critical_block` always holds its push name (`setting_pushName`: WhatsApp's apps write it at
 * registration). A companion learns its own name from it (Baileys sets creds `me.name`, without which
 * `sendPresenceUpdate('available' | 'unavailable')` sends nothing), so it is written before the
 * collection is first served.
 */
async function withPushName(account: Account): Promise<void> {
  if (!account.appState.collections.get('critical_block')?.patches.length) await append(account, [{ kind: 'push-name', name: account.pushName }]);
}

function keyOf(account: Account) {
  return async () => proto.Message.AppStateSyncKeyData.fromObject({ keyData: account.appState.keyData });
}

/** Tells the account's companions (but `except`) that collections changed. */
function announce(network: Network, account: Account, names: Set<string>, except?: ClientConnection): void {
  for (const device of account.companions.values()) {
    if (except && device.connection === except) continue;
    for (const name of names) {
      const version = String(account.appState.collections.get(name)?.patches.length ?? 0);
      network.deliver(device, { tag: 'notification', attrs: { from: SERVER, type: 'server_sync', id: stanzaId(), t: unixNow() }, content: [{ tag: 'collection', attrs: { name, version } }] });
    }
  }
}

function collectionOf(appState: PhoneAppState, name: string): { state: ReturnType<typeof newLTHashState>; patches: Buffer[] } {
  let collection = appState.collections.get(name);
  if (!collection) appState.collections.set(name, collection = { state: newLTHashState(), patches: [] });
  return collection;
}

/** Patches per answer (WhatsApp pages them with `has_more_patches`). */
const PAGE = 500;

/**
 * `xmlns="w:sync:app:state"`: each requested collection is answered with the patches after the version
 * the client has (`<patches>`, at most 500, then `has_more_patches="true"`), no snapshot. Patches a
 * client sends (its own changes) are refused with 409 conflict unless they follow the latest version,
 * and otherwise appended.
 */
export function appStateFeature(network: Network): Feature {
  return {
    iq: {
      'w:sync:app:state': async (connection, iq) => {
        const { account } = requireSession(network, connection);
        const sync = getBinaryNodeChild(iq, 'sync');
        const answers: BinaryNode[] = [];
        const changed = new Set<string>();
        for (const asked of getBinaryNodeChildren(sync, 'collection')) {
          const name = asked.attrs.name ?? '';
          if (name === 'critical_block') await withPushName(account);
          const collection = collectionOf(account.appState, name as WAPatchName);
          const have = Number(asked.attrs.version ?? 0) || 0;
          for (const sent of getBinaryNodeChildren(asked, 'patch')) {
            if (have !== collection.patches.length || !(sent.content instanceof Uint8Array)) throw new IqError(409, 'conflict');
            const version = collection.patches.length + 1;
            const decoded = proto.SyncdPatch.decode(sent.content);
            decoded.version = { version };
            // Encoded before decodePatches, which empties the patch's mutations once it applied them: the other
            // companions must get the patch whole (its MACs cover the mutations).
            const whole = Buffer.from(proto.SyncdPatch.encode(decoded).finish());
            // Which mutations are REMOVEs (Baileys' removeContact): the decoded mutations keep their order but not their operation.
            const removes = (decoded.mutations ?? []).map((m) => m.operation === proto.SyncdMutation.SyncdOperation.REMOVE);
            // The phone applies the companion's change to its own state (checking its MACs), so its later patches chain on.
            const { state, mutationMap } = await decodePatches(name as WAPatchName, [decoded], collection.state, keyOf(account), {}, undefined, silentLogger, true)
              .catch(() => { throw new IqError(400, 'bad-request'); });
            collection.state = state;
            // A companion renaming the account (Baileys updateProfileName): the name others see from now on.
            const mutations = Object.values(mutationMap);
            // Zipped by position only when every mutation decoded under an index of its own (Baileys sends one per patch).
            const aligned = mutations.length === removes.length;
            for (const [i, mutation] of mutations.entries()) {
              // A companion's pin, archive, mute, mark-read, chat deletion, contact or label is the phone's state from now on.
              const action = mutation.syncAction.value;
              applySyncAction(account, mutation.index, action, Number(action?.timestamp ?? Date.now()), aligned && removes[i]!);
              const pushName = mutation.syncAction.value?.pushNameSetting?.name;
              if (pushName) account.pushName = pushName;
            }
            collection.patches.push(whole);
            changed.add(name);
          }
          const page = collection.patches.slice(have, have + PAGE);
          const more = have + page.length < collection.patches.length;
          answers.push({
            tag: 'collection', attrs: { name, version: String(have + page.length), ...(more ? { has_more_patches: 'true' } : {}) },
            content: page.length ? [{ tag: 'patches', attrs: {}, content: page.map((p) => ({ tag: 'patch', attrs: {}, content: p })) }] : undefined,
          });
        }
        announce(network, account, changed, connection);
        return [{ tag: 'sync', attrs: {}, content: answers }];
      },
    },
  };
}
