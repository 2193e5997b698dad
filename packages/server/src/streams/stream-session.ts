import { decodeStored, ulidFloor, ulidTime, type ChannelEvent, type Clock, type EventLog, type InstanceRecord, type LoggedEvent } from '@parley/core';
import { frameText, GAP_EVENT, type StreamFrame } from './stream-frames.js';
import type { FrameSource, StreamRenderer, StreamView } from './stream-renderer.js';
import type { StreamTransport } from './stream-transport.js';

/** Entries read from the event log per replay page. */
export const REPLAY_PAGE = 200;
/** Live events held while a client replays; past it they are dropped and read from the log instead. */
export const REPLAY_PENDING_MAX = 1000;

/**
 * How late an event can be told live after another event with a greater id was (a cluster node hears
 * another node's events after its own): an admin session remembers the recent ids it replayed this
 * long after it went live, instead of dropping every live id below its cursor.
 */
export const LATE_EVENT_MS = 10_000;

/** Why a client was cut off. */
export type DropReason = 'slow' | 'stalled' | 'dead';

/** What a session needs from the hub. */
export interface SessionDeps {
  log: EventLog;
  /** Exclusive upper bound of the ids replay may send now (every earlier event is handled: {@link EventBus.horizon}). */
  horizon(): string;
  /** Whether this server's bus still handles the event with this id ({@link EventBus.handling}). */
  handling(id: string): boolean;
  renderer: StreamRenderer;
  /** An instance's current record, to render replayed events (null: deleted, its events are skipped). */
  record(id: string): Promise<InstanceRecord | null>;
  clock: Clock;
  retentionMs: number;
  /** Bytes the client may leave unread before it is cut off. */
  bufferBytes: number;
  /** How long a replaying client may take to read one page before it is cut off. */
  stallMs: number;
  /** Cuts the client off (the hub logs and counts it). */
  drop(session: StreamSession, reason: DropReason): void;
  /** Ends a client whose replay failed (storage unreachable); it reconnects from its last id. */
  failed(session: StreamSession, err: unknown): void;
  /** Resolves when the session may read the log (admin streams of a cluster node: see `StreamHubDeps.adminReady`). */
  ready?(): Promise<void>;
}

/**
 * One connected client: replays the event log from its position, then follows the live events.
 * The seam is exact: the session registers for live events before its first read, holds the live
 * events that arrive while it replays, and after the last page sends those it has not sent (ids
 * only grow, so "after the cursor" is "not sent yet"). A replay that falls further behind than
 * {@link REPLAY_PENDING_MAX} live events reads the rest from the log instead.
 */
export class StreamSession {
  private state: 'replaying' | 'live' | 'closed' = 'replaying';
  private cursor: string;
  private pending: { event: ChannelEvent; instance: InstanceRecord; render: FrameSource }[] = [];
  private overflow = false;
  /** Admin sessions: ids replayed that were recent enough to also come live, until {@link LATE_EVENT_MS} after going live. */
  private readonly replayed = new Set<string>();
  private liveAt = 0;

  constructor(
    /** The instance whose events this client gets; every instance's (admin stream) when undefined. */
    readonly instance: string | undefined,
    readonly view: StreamView,
    readonly transport: StreamTransport,
    private readonly after: string | undefined,
    private readonly deps: SessionDeps,
  ) {
    this.cursor = after ?? '';
  }

  get closed(): boolean {
    return this.state === 'closed';
  }

  /**
   * Without a position: live from now (a cluster node's admin stream: a replay from now, see
   * {@link SessionDeps.ready}). With one: the gap notice when due, the replay, then live. Never rejects.
   */
  async start(): Promise<void> {
    const { deps } = this;
    if (this.after === undefined) {
      if (!deps.ready) {
        this.state = 'live';
        return;
      }
      // The other nodes publish their events to this one only once they confirmed: what they log
      // meanwhile is read from the log, from the time the client connected.
      this.cursor = ulidFloor(deps.clock.now());
    } else if (!(ulidTime(this.after) >= deps.clock.now() - deps.retentionMs)) {
      const data = JSON.stringify({
        after: this.after, retentionSeconds: Math.round(deps.retentionMs / 1000),
        message: 'the position is older than the event log keeps: events from before the retention may be missing; what is still kept follows',
      });
      this.transport.write(frameText({ event: GAP_EVENT, data }, this.transport.wire));
    }
    try {
      await deps.ready?.();
      while (this.state === 'replaying') await this.replayPage();
    } catch (err) {
      if (this.state !== 'closed') deps.failed(this, err);
    }
  }

  /** A live event of this session's selection (the hub calls it in id order). */
  offer(event: ChannelEvent, instance: InstanceRecord, render: FrameSource): void {
    if (this.state === 'replaying') {
      if (this.pending.length >= REPLAY_PENDING_MAX) {
        this.overflow = true;
        this.pending = [];
      } else if (!this.overflow) {
        this.pending.push({ event, instance, render });
      }
      return;
    }
    if (this.state !== 'live' || this.sent(event.id)) return;
    if (event.id > this.cursor) this.cursor = event.id;
    const frame = render(this.view, this.transport.wire);
    if (frame === null) return;
    this.transport.write(frame);
    if (this.transport.buffered() > this.deps.bufferBytes) this.deps.drop(this, 'slow');
  }

  /**
   * Whether a live event was sent already. An instance's events come in id order, so those up to the
   * cursor were. The admin stream of a cluster node also gets other nodes' events, whose ids interleave
   * with its own: there only the ids it replayed were sent.
   */
  private sent(id: string): boolean {
    if (this.instance !== undefined) return id <= this.cursor;
    if (this.replayed.size > 0 && this.deps.clock.now() - this.liveAt > LATE_EVENT_MS) this.replayed.clear();
    return this.replayed.delete(id);
  }

  /** A control frame without an id (not an event: no position, no replay), sent as it comes unless the stream is closed. */
  notice(frame: StreamFrame): void {
    if (this.closed) return;
    this.transport.write(frameText(frame, this.transport.wire));
    if (this.transport.buffered() > this.deps.bufferBytes) this.deps.drop(this, 'slow');
  }

  /** Stops sending (the connection is gone or being closed). */
  close(): void {
    this.state = 'closed';
    this.pending = [];
  }

  private async replayPage(): Promise<void> {
    const { deps } = this;
    const page = await deps.log.read({ ...(this.instance === undefined ? {} : { instance: this.instance }), after: this.cursor || undefined, limit: REPLAY_PAGE });
    // Entries at or past the horizon are logged but not yet released to live clients: they come live.
    // An admin session (its live events are not in id order anyway: a cluster node's admin streams
    // also carry other nodes' events) holds back only what this server's bus still handles, so an entry
    // another node wrote before this client connected is replayed, not missed.
    const horizon = deps.horizon();
    const admin = this.instance === undefined;
    const isReady = (entry: LoggedEvent) => (admin ? !deps.handling(entry.id) : entry.id < horizon);
    const ready = page.filter(isReady);
    // Where to read again if the live events held meanwhile overflow: before the first entry held back.
    const held = page.findIndex((entry) => !isReady(entry));
    const rewind = held < 0 ? undefined : held === 0 ? this.cursor : page[held - 1]!.id;
    await this.sendReplayed(ready);
    if (this.closed) return;
    if (!(await this.transport.drained(deps.stallMs))) {
      if (!this.closed) deps.drop(this, 'stalled');
      return;
    }
    if (page.length === REPLAY_PAGE && (admin || ready.length === page.length)) return;
    if (this.overflow) {
      this.overflow = false;
      // Entries sent past the rewind point are remembered (replayed ids): they are not sent twice.
      if (admin && rewind !== undefined) this.cursor = rewind;
      return;
    }
    // Caught up: everything handled since the read is in `pending`, in id order.
    const pending = this.pending;
    this.pending = [];
    this.state = 'live';
    this.liveAt = deps.clock.now();
    for (const { event, instance, render } of pending) this.offer(event, instance, render);
  }

  private async sendReplayed(entries: LoggedEvent[]): Promise<void> {
    const records = new Map<string, InstanceRecord | null>();
    for (const entry of entries) {
      let record = records.get(entry.instance);
      if (record === undefined) records.set(entry.instance, (record = await this.deps.record(entry.instance)));
      if (this.closed) return;
      this.cursor = entry.id;
      if (this.instance === undefined) {
        // Read again after a rewind: sent already.
        if (this.replayed.has(entry.id)) continue;
        if (ulidTime(entry.id) >= this.deps.clock.now() - LATE_EVENT_MS) this.replayed.add(entry.id);
      }
      if (!record) continue;
      const text = this.deps.renderer.text(decodeStored<ChannelEvent>(entry.event), record, this.view, this.transport.wire);
      if (text !== null) this.transport.write(text);
    }
  }
}
