import { setTimeout as sleep } from 'node:timers/promises';
import { streamEvents, type InstanceClient, type StreamedEvent } from '@parley/client';

/** What `connect` learns about an instance being linked. */
export type LinkUpdate =
  | { kind: 'qrcode'; qrcode: string; image: string }
  | { kind: 'waiting'; status: string; lastError?: string }
  | { kind: 'linked'; user: unknown }
  | { kind: 'stopped'; reason: string };

/** One look at the instance through the REST API. */
export type LinkCheck = () => Promise<LinkUpdate>;

/** With the event stream open: a look at least this often even without an event (a safety net, see {@link followLink}). */
export const RECHECK_MS = 10_000;

/** Without the event stream: a look this often. */
export const POLL_INTERVAL_MS = 1_000;

/** The event kinds after which `connect` looks again: a new code, or the connection changed. */
const LINK_EVENTS = new Set(['qrcode', 'connection']);

type Connection = {
  status: string;
  failure?: { code: number; reason: string; attempts: number };
  lastError?: { message: string };
};

function stateUpdate(connection: Connection | undefined): LinkUpdate {
  if (connection?.status === 'stopped') {
    const failure = connection.failure;
    return { kind: 'stopped', reason: failure ? `${failure.reason} (code ${failure.code}) after ${failure.attempts} attempts` : connection.lastError?.message ?? 'the channel stopped trying' };
  }
  return { kind: 'waiting', status: connection?.status ?? 'connecting', ...(connection?.lastError ? { lastError: connection.lastError.message } : {}) };
}

/**
 * The QR flow's look: `POST /{key}/instance`. It is idempotent while a code is waiting (it answers the
 * current one) and starts a new attempt when the last one ended, so codes keep coming until the phone
 * scans one. Its answer carries the code as text in every webhook format (the meta format's `qrcode`
 * event carries only the PNG), which is why events only trigger a look.
 */
export function qrCheck(api: InstanceClient): LinkCheck {
  return async () => {
    const answer = await api.call('connectInstance');
    if (answer.phoneConnected) return { kind: 'linked', user: answer.user };
    if (answer.qrcode && answer.connection.status !== 'stopped') return { kind: 'qrcode', qrcode: answer.qrcode, image: answer.image };
    return stateUpdate(answer.connection);
  };
}

/** The pairing-code flow's look (the code was requested): `GET /{key}/instance`. */
export function pairingCheck(api: InstanceClient): LinkCheck {
  return async () => {
    const { instance } = await api.call('getInstance');
    return instance.phoneConnected ? { kind: 'linked', user: instance.user } : stateUpdate(instance.connection);
  };
}

/** The next event of the stream, or why there is none (it ended or failed): never rejects. */
type NextEvent = Promise<{ event: StreamedEvent } | { ended: true; error?: unknown }>;

function nextEvent(events: AsyncIterator<StreamedEvent>): NextEvent {
  return events.next().then((r) => (r.done ? { ended: true as const } : { event: r.value }), (error: unknown) => ({ ended: true as const, error }));
}

/** How `connect` learned what it shows: `stream` while the event stream is open, `poll` otherwise. */
export type FollowMode = 'stream' | 'poll';

/**
 * Follows an instance until it is linked or the deadline passes: one look at once, then a look after
 * each `qrcode` or `connection` event of the instance's event stream (`GET /{key}/events` through
 * `streamEvents`, which reconnects by itself), and at least every {@link RECHECK_MS}: the stream only
 * carries events from the moment it is registered on the server, so an event in the instant between
 * the first look and that moment is caught by the next recheck. When the stream is not available (a
 * server without it, too many streams, a proxy that buffers) the looks fall back to polling every
 * {@link POLL_INTERVAL_MS}; `onMode` is told. Ends after `linked`, or at the deadline.
 */
export async function* followLink(
  check: LinkCheck,
  stream: { baseUrl: string; key: string },
  deadline: number,
  onMode: (mode: FollowMode, error?: unknown) => void = () => {},
): AsyncGenerator<LinkUpdate> {
  const stop = new AbortController();
  const events = streamEvents({ baseUrl: stream.baseUrl, key: stream.key, signal: stop.signal, maxAttempts: 3 })[Symbol.asyncIterator]();
  // Opens the stream now, before the first look.
  let pending: NextEvent | undefined = nextEvent(events);
  onMode('stream');
  try {
    for (;;) {
      const update = await check();
      yield update;
      if (update.kind === 'linked') return;
      // Wait for a link event, a recheck, or the deadline; other events are skipped.
      for (;;) {
        const left = deadline - performance.now();
        if (left <= 0) return;
        // Cancelled once the race is decided: a timer left behind would hold the process after the link.
        const cancel = new AbortController();
        const tick = sleep(Math.min(pending ? RECHECK_MS : POLL_INTERVAL_MS, left), 'tick' as const, { signal: cancel.signal }).catch(() => 'tick' as const);
        const outcome = await (pending ? Promise.race([pending, tick]) : tick);
        cancel.abort();
        if (outcome === 'tick') break;
        if ('ended' in outcome) {
          pending = undefined;
          onMode('poll', outcome.error);
          break;
        }
        pending = nextEvent(events);
        if (LINK_EVENTS.has(outcome.event.event)) break;
      }
    }
  } finally {
    stop.abort();
  }
}
