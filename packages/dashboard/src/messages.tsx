import type { InstanceClient, OperationResponse } from '@parley/client';
import { useRef, useState } from 'preact/hooks';
import { errorText, phoneOf } from './api.js';
import { useSession } from './context.js';
import { useLive } from './live.js';
import { messageText, messageTime, type MessageRecord } from './message-text.js';
import { contactNames, personLabel, usePhoneFormat } from './people.js';
import { SendForm } from './send-form.js';
import { statusWord } from './status-words.js';
import { useLoad } from './use-load.js';

type Chat = OperationResponse<'listChats'>['data'][number];

/** Messages shown for the open chat. */
const CHAT_PAGE = 30;
/** Incoming messages kept in the live list. */
const INCOMING_KEPT = 50;

/** What tells that a chat moved: its last activity (Unix seconds) and its unread count. */
type ChatMark = { timestamp: number; unread: number };

/**
 * Incoming messages since the panel opened: each reload of the chat list compares every chat's
 * `timestamp` and `unreadCount` with the last ones seen (two messages within one second share a
 * timestamp, not an unread count) and reads the newest messages of the chats that moved.
 */
function useIncoming(api: InstanceClient) {
  const marks = useRef<Map<string, ChatMark> | undefined>(undefined);
  const seenMessages = useRef(new Set<string>());
  const [incoming, setIncoming] = useState<MessageRecord[]>([]);

  async function track(chats: Chat[]): Promise<void> {
    const previous = marks.current;
    marks.current = new Map(chats.map((c) => [c.id, { timestamp: c.timestamp, unread: c.unreadCount }]));
    if (!previous) return; // the first list is the baseline: only what comes after is "incoming"
    const moved = chats.filter((c) => {
      const before = previous.get(c.id);
      return !before || before.timestamp !== c.timestamp || before.unread !== c.unreadCount;
    });
    const fresh: MessageRecord[] = [];
    for (const chat of moved) {
      const since = previous.get(chat.id)?.timestamp ?? 0;
      const page = await api.call('listChatMessages', { params: { jid: chat.id }, query: { limit: 10 } });
      for (const m of page.data) {
        if (seenMessages.current.has(m.key.id)) continue;
        seenMessages.current.add(m.key.id);
        if (!m.key.fromMe && Number(m.messageTimestamp) >= since) fresh.push(m);
      }
    }
    if (fresh.length) setIncoming((old) => [...fresh.sort((a, b) => Number(b.messageTimestamp) - Number(a.messageTimestamp)), ...old].slice(0, INCOMING_KEPT));
  }
  return { incoming, track };
}

/** Recent chats and messages of an instance, live incoming messages, and a form to send. */
export function MessagesPanel(props: { instanceKey: string; instanceId: string }) {
  const { client } = useSession();
  const api = client.instance(props.instanceKey);
  const [open, setOpen] = useState<string>();
  const openRef = useRef(open);
  openRef.current = open;
  const [readError, setReadError] = useState('');
  usePhoneFormat();
  const { incoming, track } = useIncoming(api);
  const contacts = useLoad(async () => contactNames((await api.call('listContacts')).data), [props.instanceKey]);
  const chats = useLoad(async () => {
    const list = (await api.call('listChats')).data;
    await track(list);
    // The chat on screen is read: what arrives in it while it is open is marked read too.
    const shown = list.find((c) => c.id === openRef.current);
    if (shown && shown.unreadCount > 0) Object.assign(shown, await markRead(shown.id));
    return list;
  }, [props.instanceKey]);
  const messages = useLoad(async () => open ? (await api.call('listChatMessages', { params: { jid: open }, query: { limit: CHAT_PAGE } })).data : [], [props.instanceKey, open]);
  useLive({ instance: props.instanceId, types: ['message', 'message.status', 'chats.upsert', 'contacts.upsert'], refresh: () => Promise.all([chats.reload(), messages.reload(), contacts.reload()]), pollMs: 2000 });

  /** Marks a chat read through the API (`PATCH /{key}/chat/{jid}?action=markRead&value=true`): its unread count as the API answers it. */
  async function markRead(jid: string): Promise<{ unreadCount: number }> {
    try {
      const answer = await api.call('updateChat', { params: { jid }, query: { action: 'markRead', value: true } });
      setReadError('');
      return { unreadCount: answer.data.unreadCount };
    } catch (err) {
      setReadError(`The chat could not be marked read: ${errorText(err)}`);
      return { unreadCount: chats.data?.find((c) => c.id === jid)?.unreadCount ?? 0 };
    }
  }

  async function openChat(chat: Chat) {
    setOpen(chat.id);
    if (chat.unreadCount > 0) {
      await markRead(chat.id);
      await chats.reload();
    }
  }

  // Names the page knows for a chat: the address book's, then the push names of its messages.
  const pushNames = new Map<string, string>();
  for (const m of [...incoming, ...(messages.data ?? [])]) if (!m.key.fromMe && m.pushName) pushNames.set(m.key.remoteJid, m.pushName);
  const label = (jid: string, chatName?: string) => personLabel(jid, [chatName, ...(contacts.data?.get(jid) ?? []), pushNames.get(jid)]);

  return (
    <div class="messages-layout">
      <section class="panel" aria-labelledby="incoming-title">
        <h2 id="incoming-title">Incoming, live</h2>
        {incoming.length === 0 ? <p class="help">New incoming messages appear here as they arrive.</p> : (
          <ol class="incoming" id="incoming" aria-live="polite">
            {incoming.map((m) => (
              <li key={m.key.id}><strong>{label(m.key.remoteJid, m.pushName ?? undefined)}</strong> <span class="time">{messageTime(m)}</span><br />{messageText(m)}</li>
            ))}
          </ol>
        )}
      </section>
      <section class="panel" aria-labelledby="chats-title">
        <h2 id="chats-title">Chats</h2>
        {chats.error && <p class="error" role="alert">{chats.error}</p>}
        {readError && <p class="error" role="alert">{readError}</p>}
        {chats.data?.length === 0 && <p>No chats yet.</p>}
        <ul class="chats">
          {chats.data?.map((chat) => (
            <li key={chat.id}>
              <button type="button" class="chat" data-chat={chat.id} aria-pressed={open === chat.id} onClick={() => void openChat(chat)}>
                <span class="chat-name">{label(chat.id, chat.name)}</span>
                {chat.unreadCount > 0 && <span class="badge" aria-label={`${chat.unreadCount} unread`}>{chat.unreadCount}</span>}
              </button>
            </li>
          ))}
        </ul>
      </section>
      {open && (
        <section class="panel" aria-labelledby="chat-title">
          <h2 id="chat-title">Chat with {label(open, chats.data?.find((c) => c.id === open)?.name)}</h2>
          {messages.error && <p class="error" role="alert">{messages.error}</p>}
          <ol class="conversation" aria-live="polite">
            {[...(messages.data ?? [])].reverse().map((m) => (
              <li key={m.key.id} class={m.key.fromMe ? 'mine' : 'theirs'}>
                <span class="text">{messageText(m)}</span>
                <span class="meta">{messageTime(m)}{m.key.fromMe ? ` · ${statusWord(m.status)}` : ''}</span>
              </li>
            ))}
          </ol>
        </section>
      )}
      <section class="panel">
        <SendForm instanceKey={props.instanceKey} instanceId={props.instanceId} to={open ? phoneOf(open) : ''} onSent={() => void Promise.all([chats.reload(), messages.reload()])} />
      </section>
    </div>
  );
}
