import type { InstanceClient, OperationResponse } from '@parley/client';
import { useRef, useState } from 'preact/hooks';
import { phoneOf } from './api.js';
import { useSession } from './context.js';
import { useLive } from './live.js';
import { messageText, messageTime, type MessageRecord } from './message-text.js';
import { SendForm } from './send-form.js';
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
  const { incoming, track } = useIncoming(api);
  const chats = useLoad(async () => {
    const list = (await api.call('listChats')).data;
    await track(list);
    return list;
  }, [props.instanceKey]);
  const messages = useLoad(async () => open ? (await api.call('listChatMessages', { params: { jid: open }, query: { limit: CHAT_PAGE } })).data : [], [props.instanceKey, open]);
  useLive({ instance: props.instanceId, types: ['message', 'message.status', 'chats.upsert'], refresh: () => Promise.all([chats.reload(), messages.reload()]), pollMs: 2000 });

  return (
    <div class="messages-layout">
      <section class="panel" aria-labelledby="incoming-title">
        <h2 id="incoming-title">Incoming, live</h2>
        {incoming.length === 0 ? <p class="help">New incoming messages appear here as they arrive.</p> : (
          <ol class="incoming" id="incoming" aria-live="polite">
            {incoming.map((m) => (
              <li key={m.key.id}><strong>{m.pushName ?? `+${phoneOf(m.key.remoteJid)}`}</strong> <span class="time">{messageTime(m)}</span><br />{messageText(m)}</li>
            ))}
          </ol>
        )}
      </section>
      <section class="panel" aria-labelledby="chats-title">
        <h2 id="chats-title">Chats</h2>
        {chats.error && <p class="error" role="alert">{chats.error}</p>}
        {chats.data?.length === 0 && <p>No chats yet.</p>}
        <ul class="chats">
          {chats.data?.map((chat) => (
            <li key={chat.id}>
              <button type="button" class="chat" aria-pressed={open === chat.id} onClick={() => setOpen(chat.id)}>
                <span>{chat.name || `+${phoneOf(chat.id)}`}</span>
                {chat.unreadCount > 0 && <span class="badge" aria-label={`${chat.unreadCount} unread`}>{chat.unreadCount}</span>}
              </button>
            </li>
          ))}
        </ul>
      </section>
      {open && (
        <section class="panel" aria-labelledby="chat-title">
          <h2 id="chat-title">Chat with {chats.data?.find((c) => c.id === open)?.name || `+${phoneOf(open)}`}</h2>
          {messages.error && <p class="error" role="alert">{messages.error}</p>}
          <ol class="conversation" aria-live="polite">
            {[...(messages.data ?? [])].reverse().map((m) => (
              <li key={m.key.id} class={m.key.fromMe ? 'mine' : 'theirs'}>
                <span class="text">{messageText(m)}</span>
                <span class="meta">{messageTime(m)}{m.key.fromMe ? ` · ${m.status}` : ''}</span>
              </li>
            ))}
          </ol>
        </section>
      )}
      <section class="panel">
        <SendForm instanceKey={props.instanceKey} to={open ? phoneOf(open) : ''} onSent={() => void Promise.all([chats.reload(), messages.reload()])} />
      </section>
    </div>
  );
}
