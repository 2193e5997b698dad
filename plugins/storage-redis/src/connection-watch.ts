/** What the watch needs of a node-redis client. */
export interface WatchedClient {
  readonly isReady: boolean;
  ping(): Promise<unknown>;
  on(event: 'connect' | 'ready' | 'error', listener: () => void): unknown;
}

/**
 * Tells a Redis connection that stopped answering from one that is slow or reconnecting, so it can be
 * replaced. node-redis notices a connection that closes or refuses, but not one whose peer went
 * silent (a partition, a dropped route, a proxy that swallows bytes): the socket stays open, commands
 * wait for answers that never come and every later one queues behind them — for good, even once the
 * network is back if bytes were lost on the way. The connection is declared dead when:
 *
 * - a command (a PING every `intervalMs` included) waited `timeoutMs` and nothing at all was heard on
 *   the connection since it was sent (a slow Redis still answers the commands ahead of it), or
 * - a new connection's handshake got no answer within `timeoutMs` (node-redis bounds only the TCP
 *   connect, and a black hole accepts that).
 */
export class ConnectionWatch {
  /** performance.now() of the last answer. */
  private lastHeard = performance.now();
  /** When the current connection attempt's socket connected, while its handshake is unanswered. */
  private handshakeSince?: number;
  private pinging = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly intervalMs: number,
    private readonly timeoutMs: number,
    private readonly client: () => WatchedClient | undefined,
    private readonly dead: (reason: string) => void,
  ) {}

  /** Starts the pings (the timer never keeps the process alive). */
  start(): void {
    this.timer ??= setInterval(() => this.tick(), this.intervalMs).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Wires the watch to a client's connection events: a fresh client starts unanswered until ready. */
  follow(client: WatchedClient): void {
    client.on('connect', () => {
      if (client === this.client()) this.handshakeSince = performance.now();
    });
    client.on('ready', () => {
      if (client !== this.client()) return;
      this.handshakeSince = undefined;
      this.heard();
    });
    client.on('error', () => {
      if (client === this.client()) this.handshakeSince = undefined;
    });
  }

  /** Redis answered something (a reply or an error reply). */
  heard(): void {
    this.lastHeard = performance.now();
  }

  /** A command sent at `sentAt` got no answer within the time-out: the connection is dead if nothing was heard since. */
  timedOut(sentAt: number): void {
    if (this.lastHeard < sentAt) this.declareDead(`no answer for ${this.timeoutMs} ms`);
  }

  private declareDead(reason: string): void {
    this.handshakeSince = undefined;
    this.lastHeard = performance.now();
    this.dead(reason);
  }

  private tick(): void {
    const client = this.client();
    if (!client) return;
    if (this.handshakeSince !== undefined && performance.now() - this.handshakeSince >= this.timeoutMs) {
      this.declareDead(`connection handshake unanswered for ${this.timeoutMs} ms`);
      return;
    }
    if (!client.isReady || this.pinging) return;
    this.pinging = true;
    const sentAt = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.timeoutMs);
    });
    Promise.race([client.ping().then(() => 'answered' as const, () => 'failed' as const), late])
      .then((outcome) => {
        if (outcome === 'answered') this.heard();
        else if (outcome === 'late' && client === this.client()) this.timedOut(sentAt);
      })
      .finally(() => {
        clearTimeout(timer);
        this.pinging = false;
      });
  }
}
