import { useEffect, useRef, useState } from 'preact/hooks';
import { useSession } from './context.js';
import { useLive, type LiveEvent } from './live.js';
import { laterStatus, statusWord } from './status-words.js';
import { useAction } from './use-load.js';

const MEDIA_TYPES = ['image', 'video', 'audio'] as const;
type MediaType = (typeof MEDIA_TYPES)[number];

/** Statuses of `message.status` events kept by message id, for a send whose answer comes after its first receipts. */
const KEPT_STATUSES = 100;
/** Statuses after which nothing changes any more: the record is not read again. */
const FINAL = new Set(['Read', 'Played', 'Failed']);

/**
 * The status of the last message sent, in words, following its `message.status` events (and, while
 * events do not stream, its record through `GET /{key}/message/{id}`).
 */
function useSentStatus(instanceKey: string, instanceId: string) {
  const { client } = useSession();
  const [sent, setSent] = useState<{ id: string; word: string }>();
  const seen = useRef(new Map<string, string>());
  const advance = (id: string, word: string) => setSent((old) => old && old.id === id ? { id, word: laterStatus(old.word, word) } : old);
  useLive({
    instance: instanceId,
    types: ['message.status'],
    onEvent: (e: LiveEvent) => {
      const id = String(e.data.messageId ?? '');
      const word = statusWord(String(e.data.status ?? ''));
      seen.current.set(id, laterStatus(seen.current.get(id) ?? 'Queued', word));
      if (seen.current.size > KEPT_STATUSES) seen.current.delete(seen.current.keys().next().value!);
      advance(id, word);
    },
    refresh: async () => {
      if (sent && !FINAL.has(sent.word)) advance(sent.id, statusWord((await client.instance(instanceKey).call('getMessage', { params: { messageId: sent.id } })).data.status));
    },
    pollMs: 2000,
  });
  return {
    sent,
    /** A send was answered: its status as answered, or a later one an event already brought. */
    start(id: string, status: string) {
      setSent({ id, word: laterStatus(statusWord(status), seen.current.get(id) ?? 'Queued') });
    },
    clear: () => setSent(undefined),
  };
}

/** Sends a text, or a media URL with a caption, from the instance: the same send routes any client uses. */
export function SendForm(props: { instanceKey: string; instanceId: string; to: string; onSent(): void }) {
  const { client } = useSession();
  const api = client.instance(props.instanceKey);
  const [to, setTo] = useState(props.to);
  const [text, setText] = useState('');
  const [mediaType, setMediaType] = useState<MediaType>('image');
  const [mediaUrl, setMediaUrl] = useState('');
  const status = useSentStatus(props.instanceKey, props.instanceId);
  const action = useAction();
  useEffect(() => setTo(props.to), [props.to]);

  async function submit(e: Event) {
    e.preventDefault();
    status.clear();
    const url = mediaUrl.trim();
    const answer = await action.run(() => !url
      ? api.call('sendText', { body: { to: to.trim(), text } })
      : mediaType === 'image' ? api.call('sendImage', { body: { to: to.trim(), url, ...(text ? { caption: text } : {}) } })
        : mediaType === 'video' ? api.call('sendVideo', { body: { to: to.trim(), url, ...(text ? { caption: text } : {}) } })
          : api.call('sendAudio', { body: { to: to.trim(), url } }));
    if (answer) {
      status.start(answer.data.key.id, answer.data.status);
      setText('');
      setMediaUrl('');
      props.onSent();
    }
  }

  const errors = action.fields;
  const invalid = (name: string) => ({ 'aria-invalid': errors[name] ? 'true' as const : undefined, 'aria-describedby': errors[name] ? `send-${name}-error` : undefined });
  const fieldError = (name: string) => errors[name] && <p id={`send-${name}-error`} class="error">{errors[name]}</p>;

  return (
    <form onSubmit={submit} class="grid-form" aria-labelledby="send-title">
      <h2 id="send-title">Send a message</h2>
      <label for="send-to">To (phone number with country code, or a JID)</label>
      <input id="send-to" required value={to} onInput={(e) => setTo(e.currentTarget.value)} {...invalid('to')} />
      {fieldError('to')}
      <label for="send-text">{mediaUrl.trim() ? 'Caption' : 'Text'}</label>
      <textarea id="send-text" rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} required={!mediaUrl.trim()} {...invalid(mediaUrl.trim() ? 'caption' : 'text')} />
      {fieldError('text')}{fieldError('caption')}
      <fieldset class="media">
        <legend>Media (optional)</legend>
        <label for="send-media-type">Kind</label>
        <select id="send-media-type" value={mediaType} onChange={(e) => setMediaType(e.currentTarget.value as MediaType)}>
          {MEDIA_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
        </select>
        <label for="send-media-url">Media URL</label>
        <input id="send-media-url" type="text" inputMode="url" placeholder="https://…" value={mediaUrl} onInput={(e) => setMediaUrl(e.currentTarget.value)} {...invalid('url')} />
        {fieldError('url')}
      </fieldset>
      <button type="submit" disabled={action.busy}>{action.busy ? 'Sending…' : 'Send'}</button>
      {action.error && <p class="error" role="alert">{action.error}</p>}
      {status.sent && <p class="ok" role="status" id="send-status">Sent: {status.sent.word}.</p>}
    </form>
  );
}
