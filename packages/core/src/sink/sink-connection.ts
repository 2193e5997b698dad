import type { Sink, SinkHealth, SinkMessage } from './sink.js';
import { withinTime } from './sink-options.js';

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
 */
export class SinkConnection<T> {
  private pending: Promise<T> | null = null;
  private current: T | null = null;
  private state: SinkHealth = { ready: false, detail: 'not connected yet' };
  private stopped = false;

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
      this.state = { ready: true };
      return connection;
    }, (err: unknown) => {
      this.pending = null;
      this.state = { ready: false, detail: this.connector.failure(err as Error) };
      throw err;
    });
    return this.pending;
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
    return true;
  }

  /** Sets the health of the connection in use (a client that reconnects by itself reports it). */
  report(connection: T, state: SinkHealth): void {
    if (this.current === connection && !this.stopped) this.state = state;
  }

  health(): SinkHealth {
    return { ...this.state };
  }

  /** Closes the connection (bounded); `get` rejects afterwards. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    const connection = this.current;
    this.current = null;
    this.pending = null;
    this.state = { ready: false, detail: 'stopped' };
    if (connection) await withinTime(this.connector.close(connection), this.closeTimeoutMs, 'close timed out').catch(() => undefined);
  }
}

/**
 * A {@link Sink} over one {@link SinkConnection}: `start` opens it, `health` and `stop` are its own.
 * A sink plugin writes `publish` and its connector.
 */
export abstract class ConnectedSink<T> implements Sink {
  protected readonly connection: SinkConnection<T>;

  constructor(readonly name: string, label: string, connector: SinkConnector<T>, closeTimeoutMs: number) {
    this.connection = new SinkConnection(label, connector, closeTimeoutMs);
  }

  async start(): Promise<void> {
    await this.connection.get();
  }

  abstract publish(message: SinkMessage, signal: AbortSignal): Promise<void>;

  health(): SinkHealth {
    return this.connection.health();
  }

  stop(): Promise<void> {
    return this.connection.stop();
  }
}
