import type { Sink, SinkBatchResult, SinkHealth, SinkMessage } from './sink.js';
import { withinTime } from './sink-options.js';

/** First delay of the background reconnection after a connection is lost or cannot be opened (ms). */
const RECONNECT_FIRST_MS = 250;
/** The delay doubles after each failed attempt up to this bound (ms): a broker that is back is found within it. */
const RECONNECT_MAX_MS = 5_000;

/** How a {@link SinkConnection} opens and closes its broker connection. */
export interface SinkConnector<T> {
  /** Opens a connection and declares or checks the topology; rejects with what is wrong. */
  open(): Promise<T>;
  /** Closes a connection (bounded by the caller). */
  close(connection: T): Promise<void>;
  /** The health detail of a failed {@link open} (never a credential). */
  failure(error: Error): string;
}

/**
 * The one broker connection a sink keeps: opened on demand and shared by concurrent callers, forgotten
 * when lost (the next {@link get} opens a new one), closed by {@link stop}; it tracks the sink's health.
 * After a loss or a failed open it reconnects in the background (every 250 ms at first, doubling up to
 * 5 s, until it succeeds or stops) and tells {@link onReady} listeners when it is ready again, so the
 * host can resume at once instead of waiting for the deliveries' next retry.
 */
export class SinkConnection<T> {
  private pending: Promise<T> | null = null;
  private current: T | null = null;
  private state: SinkHealth = { ready: false, detail: 'not connected yet' };
  private stopped = false;
  private readonly listeners: (() => void)[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay = RECONNECT_FIRST_MS;

  /** @param closeTimeoutMs - bound of closing a connection on {@link stop}. */
  constructor(private readonly name: string, private readonly connector: SinkConnector<T>, private readonly closeTimeoutMs: number) {}

  /** The open connection, opening one when there is none. Rejects once stopped. */
  get(): Promise<T> {
    if (this.stopped) return Promise.reject(new Error(`the ${this.name} sink is stopped`));
    this.pending ??= this.connector.open().then(async (connection) => {
      if (this.stopped) {
        await this.connector.close(connection).catch(() => undefined);
        throw new Error(`the ${this.name} sink is stopped`);
      }
      this.current = connection;
      this.retryDelay = RECONNECT_FIRST_MS;
      this.ready();
      return connection;
    }, (err: unknown) => {
      this.pending = null;
      if (!this.stopped) this.state = { ready: false, detail: this.connector.failure(err as Error) };
      this.reconnectLater();
      throw err;
    });
    return this.pending;
  }

  /** Calls `listener` each time the sink becomes ready: a connection opened, or a client that reconnected by itself. */
  onReady(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Whether `connection` is the one in use. */
  isCurrent(connection: T): boolean {
    return this.current === connection;
  }

  /**
   * Forgets `connection` when it is the one in use (closed by the broker, or hanging), closing it in the
   * background; the next {@link get} opens a new one. Answers whether it was the one in use.
   */
  lost(connection: T, detail: string): boolean {
    if (this.current !== connection) return false;
    this.current = null;
    this.pending = null;
    if (!this.stopped) this.state = { ready: false, detail };
    void this.connector.close(connection).catch(() => undefined);
    this.reconnectLater();
    return true;
  }

  /** Sets the health of the connection in use (a client that reconnects by itself reports it). */
  report(connection: T, state: SinkHealth): void {
    if (this.current !== connection || this.stopped) return;
    if (state.ready) this.ready();
    else this.state = state;
  }

  health(): SinkHealth {
    return { ...this.state };
  }

  /** Closes the connection (bounded); `get` rejects afterwards. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const connection = this.current;
    this.current = null;
    this.pending = null;
    this.state = { ready: false, detail: 'stopped' };
    if (connection) await withinTime(this.connector.close(connection), this.closeTimeoutMs, 'close timed out').catch(() => undefined);
  }

  private ready(): void {
    const was = this.state.ready;
    this.state = { ready: true };
    if (!was) for (const listener of this.listeners) listener();
  }

  /** One background attempt to open a connection after the current delay (one pending at a time). */
  private reconnectLater(): void {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped && !this.current) this.get().catch(() => undefined);
    }, this.retryDelay);
    this.retryTimer.unref();
    this.retryDelay = Math.min(this.retryDelay * 2, RECONNECT_MAX_MS);
  }
}

/**
 * A {@link Sink} over one {@link SinkConnection}: `start` opens it, `health`, `onReconnect` and `stop`
 * are its own, and `publish` is a batch of one. A sink plugin writes `publishBatch` and its connector.
 */
export abstract class ConnectedSink<T> implements Sink {
  protected readonly connection: SinkConnection<T>;

  constructor(readonly name: string, label: string, connector: SinkConnector<T>, closeTimeoutMs: number) {
    this.connection = new SinkConnection(label, connector, closeTimeoutMs);
  }

  async start(): Promise<void> {
    await this.connection.get();
  }

  async publish(message: SinkMessage, signal: AbortSignal): Promise<void> {
    const result = await this.publishBatch([message], signal);
    if (result.confirmed < 1) throw result.error ?? new Error('not confirmed');
  }

  abstract publishBatch(messages: SinkMessage[], signal: AbortSignal): Promise<SinkBatchResult>;

  onReconnect(listener: () => void): void {
    this.connection.onReady(listener);
  }

  health(): SinkHealth {
    return this.connection.health();
  }

  stop(): Promise<void> {
    return this.connection.stop();
  }
}
