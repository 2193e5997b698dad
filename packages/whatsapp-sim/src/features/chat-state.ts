import type { proto } from '@whiskeysockets/baileys';
import type { Account, ChatState } from '../network/model.js';

/**
 * The phone's per-chat state (pinned, archived, muted, read or marked unread, the unread count and the
 * disappearing-messages timer), kept from the changes the phone makes and learns: its app-state changes and
 * those its companions send (the sync actions whatsmeow appstate/keys.go names: `pin_v1`, `archive`,
 * `mute`, `markChatAsRead`), and the EPHEMERAL_SETTING messages of its 1:1 chats. A new companion gets it
 * in each `Conversation` of its history sync, as WhatsApp sends it (WAProto `Conversation`: `archived` 16,
 * `markedAsUnread` 19, `pinned` 24, `muteEndTime` 25, `unreadCount` 6, `ephemeralExpiration` 9,
 * `ephemeralSettingTimestamp` 10; Baileys Utils/history.js processHistoryMessage hands each conversation over
 * as the chat itself). That matters beyond fidelity: on its initial sync, Baileys makes a pin, mute,
 * archive or mark-read sync action a *conditional* chat update (Utils/chat-utils.js
 * getChatUpdateConditional) that its event buffer holds until the chat appears in the same buffer's
 * history set; when the history came in an earlier flush, the update stays held, and only the state the
 * history carried is what the app sees.
 */
export function chatStateOf(account: Account, jid: string): ChatState {
  let state = account.chats.get(jid);
  if (!state) account.chats.set(jid, state = {});
  return state;
}

/**
 * A sync action's effect on the phone's chat state and address book, by its index (`[type, jid, …]`) and value,
 * at `timestamp` (ms); `removed` for a REMOVE mutation (Baileys' removeContact: the contact index with
 * `SyncdOperation.REMOVE`). The indexes and actions are those Baileys' chatModificationToAppPatch writes and
 * processSyncAction reads (Utils/chat-utils.js): `pin_v1`, `archive`, `mute`, `markChatAsRead`,
 * `deleteChat` (the chat leaves the phone's chat list, its messages with it), `contact`, `label_edit`
 * (`deleted` removes the label) and `label_jid` (`[label_jid, labelId, chatJid]`).
 */
export function applySyncAction(account: Account, index: readonly string[], action: proto.ISyncActionValue | null | undefined, timestamp: number, removed = false): void {
  const [type, jid] = index;
  if (!jid || !action) return;
  if (type === 'pin_v1' && action.pinAction) {
    chatStateOf(account, jid).pinned = action.pinAction.pinned ? Math.floor(timestamp / 1000) : 0;
  } else if (type === 'archive' && action.archiveChatAction) {
    chatStateOf(account, jid).archived = !!action.archiveChatAction.archived;
  } else if (type === 'mute' && action.muteAction) {
    const { muted, muteEndTimestamp } = action.muteAction;
    chatStateOf(account, jid).muteEndTime = muted ? Number(muteEndTimestamp ?? -1) : 0;
  } else if (type === 'markChatAsRead' && action.markChatAsReadAction) {
    const state = chatStateOf(account, jid);
    // WhatsApp's "mark as unread" only flags a read chat; marking read clears both the flag and the count.
    state.markedAsUnread = !action.markChatAsReadAction.read;
    if (action.markChatAsReadAction.read) state.unreadCount = 0;
  } else if (type === 'deleteChat') {
    account.chats.delete(jid);
    account.history = account.history.filter((chat) => chat.id !== jid);
  } else if (type === 'contact') {
    if (removed) account.book.contacts.delete(jid);
    else {
      const { fullName, firstName } = action.contactAction ?? {};
      account.book.contacts.set(jid, { ...(fullName ? { fullName } : {}), ...(firstName ? { firstName } : {}) });
    }
  } else if (type === 'label_edit' && action.labelEditAction) {
    const { name, color, deleted } = action.labelEditAction;
    if (deleted) account.book.labels.delete(jid);
    else account.book.labels.set(jid, { name: name ?? '', color: color ?? 0, chats: account.book.labels.get(jid)?.chats ?? new Set() });
  } else if (type === 'label_jid' && action.labelAssociationAction && index[2]) {
    const chats = account.book.labels.get(jid)?.chats;
    if (action.labelAssociationAction.labeled) chats?.add(index[2]);
    else chats?.delete(index[2]);
  }
}

/** What the phone shows: each chat's state, the saved contacts and the labels with the chats carrying them. */
export interface PhoneStateView {
  chats: Record<string, ChatState>;
  contacts: Record<string, { fullName?: string; firstName?: string }>;
  labels: Array<{ id: string; name: string; color: number; chats: string[] }>;
}

export function phoneStateOf(account: Account): PhoneStateView {
  return {
    chats: Object.fromEntries([...account.chats].map(([jid, state]) => [jid, { ...state }])),
    contacts: Object.fromEntries([...account.book.contacts].map(([jid, contact]) => [jid, { ...contact }])),
    labels: [...account.book.labels].map(([id, label]) => ({ id, name: label.name, color: label.color, chats: [...label.chats].sort() })),
  };
}

/** The 1:1 chat's disappearing timer changed (an EPHEMERAL_SETTING, Unix seconds `at`), on both accounts' phones. */
export function keepTimer(a: Account, b: Account, expiration: number, at: number): void {
  for (const [self, peer] of [[a, b], [b, a]] as const) {
    Object.assign(chatStateOf(self, `${peer.number}@s.whatsapp.net`), { ephemeralExpiration: expiration, ephemeralSettingTimestamp: at });
  }
}

/**
 * The phone's conversations as its history sync sends them: the seeded history with each chat's state, then
 * a message-less conversation for each other chat that has state (a chat pinned, muted or with a timer but
 * none of whose messages the history holds still reaches the companion, as WhatsApp lists every chat).
 */
export function conversationsOf(account: Account): proto.IConversation[] {
  const seen = new Set<string>();
  const withState = account.history.map((chat) => {
    seen.add(chat.id ?? '');
    return { ...chat, ...conversationFields(account.chats.get(chat.id ?? '')) };
  });
  for (const [jid, state] of account.chats) {
    if (!seen.has(jid)) withState.push({ id: jid, conversationTimestamp: state.ephemeralSettingTimestamp ?? 0, ...conversationFields(state) });
  }
  return withState;
}

/** The `Conversation` fields of a chat state (only those it has). */
function conversationFields(state: ChatState | undefined): proto.IConversation {
  if (!state) return {};
  const fields: proto.IConversation = {};
  if (state.pinned) fields.pinned = state.pinned;
  if (state.archived) fields.archived = true;
  // Unix seconds in a Conversation (WhatsApp's clients compare it with the time in seconds), milliseconds in the mute action.
  if (state.muteEndTime && state.muteEndTime > 0) fields.muteEndTime = Math.floor(state.muteEndTime / 1000);
  if (state.markedAsUnread) fields.markedAsUnread = true;
  if (state.unreadCount !== undefined) fields.unreadCount = state.unreadCount;
  if (state.ephemeralExpiration !== undefined) {
    fields.ephemeralExpiration = state.ephemeralExpiration;
    fields.ephemeralSettingTimestamp = state.ephemeralSettingTimestamp;
  }
  return fields;
}
