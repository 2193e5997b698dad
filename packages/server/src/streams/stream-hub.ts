import { ParleyError, type ChannelEvent, type Clock, type EventLog, type InstanceRecord, type Logger } from '@parley/core';
import type { StreamsConfig } from '../config/config.js';
import type { EventBus } from '../events/event-bus.js';
import type { StreamRenderer, StreamView } from './stream-renderer.js';
import { StreamSession, type DropReason, type SessionDeps } from './stream-session.js';
import type { StreamTransport } from './stream-transport.js';

/** What the hub reports to the metrics. */
export interface StreamObserver {
  /** A client was cut off. */
  streamDropped(reason: DropReason): void;
  /** A stream was refused by a concurrency limit. */
  streamRefused(limit: 'instance' | 'total'): void;
}

/** A place reserved for one stream by {@link StreamHub.reserve}, consumed by {@link StreamHub.open}. */
export interface StreamSlot {
  readonly instance: string | undefined;
}

/** Everything the hub needs. */
export interface StreamHubDeps {
  bus: Pick<EventBus, 'watch' | 'horizon' | 'handling'>;
  log: EventLog;
  renderer: StreamRenderer;
  /** An instance's current record (null when deleted). */
  record(id: string): Promise<InstanceRecord | null>;
  config: StreamsConfig;
  clock: Clock;
  logger: Logger;
  observer?: StreamObserver;
  /**
   * Resolves when an admin-wide stream may replay: on a cluster node, once the other nodes publish
   * their events to this one (docs/cluster.md). Absent: at once.
   */
  adminReady?(): Promise<void>;
}

/**
 * Every open event stream: admission under the concurrency limits, live fan-out of the bus's handled
 * events (in id order; one render per format for all clients), heartbeats, back-pressure and the
 * closing of every stream at shutdown.
 */
export class StreamHub {
  private readonly byInstance = new Map<string, Set<StreamSession>>();
  private readonly admin = new Set<StreamSession>();
  private reserved = 0;
  private readonly perInstance = new Map<string, number>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly unwatch: () => void;
  private readonly sessionDeps: SessionDeps;
  private readonly adminSessionDeps: SessionDeps;
  private closing = false;

  constructor(private readonly deps: StreamHubDeps) {
    const { config } = deps;
    this.sessionDeps = {
      log: deps.log, horizon: () => deps.bus.horizon(), handling: (id) => deps.bus.handling(id), renderer: deps.renderer, record: deps.record, clock: deps.clock,
      retentionMs: config.retentionSeconds * 1000, bufferBytes: config.bufferBytes, stallMs: Math.max(2, config.heartbeatSeconds * 2) * 1000,
      drop: (session, reason) => this.drop(session, reason),
      failed: (session, err) => {
        deps.logger.warn({ err, instance: session.instance }, 'event stream replay failed; the stream is closed and the client resumes from its last id');
        session.transport.destroy();
      },
    };
    this.adminSessionDeps = deps.adminReady ? { ...this.sessionDeps, ready: () => deps.adminReady!() } : this.sessionDeps;
    this.unwatch = deps.bus.watch((event, instance) => this.fanOut(event, instance));
    this.heartbeat = setInterval(() => this.beat(), config.heartbeatSeconds * 1000);
    this.heartbeat.unref();
  }

  /** Open streams: all, and of one instance. */
  count(instance?: string): number {
    return instance === undefined ? this.reserved : this.perInstance.get(instance) ?? 0;
  }

  /**
   * Reserves a place for a stream of `instance` (admin: undefined) under the limits, before anything
   * is sent: throws 429 `too_many_streams` naming the limit that is reached.
   */
  reserve(instance: string | undefined): StreamSlot {
    const { maxTotal, maxPerInstance } = this.deps.config;
    if (this.closing) throw new ParleyError(503, 'shutting_down', 'the server is shutting down');
    if (this.reserved >= maxTotal) {
      this.deps.observer?.streamRefused('total');
      throw new ParleyError(429, 'too_many_streams', `the server has ${maxTotal} open event streams, its limit (streams.maxTotal)`, { limit: maxTotal });
    }
    if (instance !== undefined && (this.perInstance.get(instance) ?? 0) >= maxPerInstance) {
      this.deps.observer?.streamRefused('instance');
      throw new ParleyError(429, 'too_many_streams', `this instance has ${maxPerInstance} open event streams, its limit (streams.maxPerInstance)`, { limit: maxPerInstance });
    }
    this.reserved++;
    if (instance !== undefined) this.perInstance.set(instance, (this.perInstance.get(instance) ?? 0) + 1);
    return { instance };
  }

  /** Starts a reserved stream on its transport: replay from `after`, then live. */
  open(slot: StreamSlot, transport: StreamTransport, view: StreamView, after: string | undefined): void {
    const session = new StreamSession(slot.instance, view, transport, after, slot.instance === undefined ? this.adminSessionDeps : this.sessionDeps);
    const set = slot.instance === undefined ? this.admin : this.setOf(slot.instance);
    set.add(session);
    transport.onClose(() => {
      session.close();
      set.delete(session);
      if (slot.instance !== undefined && set.size === 0) this.byInstance.delete(slot.instance);
      this.release(slot);
    });
    if (this.closing) transport.end();
    else void session.start();
  }

  /** Ends the streams of one instance (it was deleted). */
  endInstance(instance: string): void {
    for (const session of this.byInstance.get(instance) ?? []) {
      session.close();
      session.transport.end();
    }
  }

  /** Open admin-wide streams. */
  adminCount(): number {
    return this.admin.size;
  }

  /**
   * An event of an instance another cluster node runs, for the admin-wide streams only (its own
   * streams are served by that node). Each node's events come in its id order.
   */
  offerAdmin(event: ChannelEvent, instance: InstanceRecord): void {
    if (this.admin.size === 0) return;
    const render = this.deps.renderer.memo(event, instance);
    for (const session of this.admin) session.offer(event, instance, render);
  }

  /**
   * A notice for the admin-wide streams that is no event of an instance (a cluster node joined, left or
   * died): a frame without an id, sent at once, neither logged nor replayed; it does not move a client's position.
   */
  noticeAdmin(kind: string, data: string): void {
    for (const session of this.admin) session.notice({ event: kind, data });
  }

  /** Ends the admin-wide streams (their clients resume from the event log with their last id). */
  endAdmin(): void {
    for (const session of this.admin) {
      session.close();
      session.transport.end();
    }
  }

  /** Ends every stream (graceful shutdown); new ones are refused from now on. */
  close(): void {
    this.closing = true;
    clearInterval(this.heartbeat);
    this.unwatch();
    for (const session of [...this.admin, ...[...this.byInstance.values()].flatMap((set) => [...set])]) {
      session.close();
      session.transport.end();
    }
  }

  private setOf(instance: string): Set<StreamSession> {
    let set = this.byInstance.get(instance);
    if (!set) this.byInstance.set(instance, (set = new Set()));
    return set;
  }

  /** Gives back a place whose stream never opened (a refused WebSocket handshake). */
  unreserve(slot: StreamSlot): void {
    this.release(slot);
  }

  private release(slot: StreamSlot): void {
    this.reserved--;
    if (slot.instance === undefined) return;
    const left = (this.perInstance.get(slot.instance) ?? 1) - 1;
    if (left <= 0) this.perInstance.delete(slot.instance);
    else this.perInstance.set(slot.instance, left);
  }

  private fanOut(event: ChannelEvent, instance: InstanceRecord): void {
    const own = this.byInstance.get(instance.id);
    if (!own && this.admin.size === 0) return;
    const render = this.deps.renderer.memo(event, instance);
    if (own) for (const session of own) session.offer(event, instance, render);
    for (const session of this.admin) session.offer(event, instance, render);
  }

  private drop(session: StreamSession, reason: DropReason): void {
    if (session.closed) return;
    session.close();
    this.deps.observer?.streamDropped(reason);
    this.deps.logger.warn({ instance: session.instance ?? 'admin', reason, buffered: session.transport.buffered() }, 'event stream client cut off');
    session.transport.destroy();
  }

  private beat(): void {
    for (const session of [...this.admin, ...[...this.byInstance.values()].flatMap((set) => [...set])]) {
      if (session.closed) continue;
      if (!session.transport.heartbeat()) this.drop(session, 'dead');
      else if (session.transport.buffered() > this.deps.config.bufferBytes) this.drop(session, 'slow');
    }
  }
}
