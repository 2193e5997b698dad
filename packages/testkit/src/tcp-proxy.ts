import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** Reads and throws away what a blackholed socket receives. */
const drop = (): void => undefined;

/** A wire armed by {@link TcpProxy.tripOn}. */
interface Trip {
  trips: (text: string) => boolean;
  onTrip: () => void;
  tripped: boolean;
}

/** Characters of a connection's previous chunk that {@link TcpProxy.tripOn} looks at with the next one. */
const TRIP_TAIL = 4096;

/**
 * A loopback TCP proxy in front of a shared service (Redis, RabbitMQ, NATS). Cutting it drops every
 * connection and refuses new ones — an outage as the client sees it — without touching the server
 * others use; {@link reset} drops them with a TCP reset and {@link silence} makes the port a black hole.
 * The three states of a partition test are {@link pass}, {@link refuse} and {@link blackhole}.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly pairs = new Set<[Socket, Socket]>();
  private blackholed = false;
  /** Answers are held on connections opened from now on too ({@link holdAnswers}), until a cut or reset. */
  private answersHeld = false;
  /** Set by {@link tripOn}: what clients send is watched on every connection. */
  private trip: Trip | undefined;
  port = 0;

  constructor(private readonly targetHost: string, private readonly targetPort: number) {}

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = createConnection({ host: this.targetHost, port: this.targetPort });
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => { client.destroy(); upstream.destroy(); });
      }
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      client.on('close', () => this.pairs.delete(pair));
      if (this.blackholed) {
        this.swallow(pair);
      } else {
        if (this.trip) this.watch(pair, this.trip);
        else client.pipe(upstream);
        if (!this.answersHeld) upstream.pipe(client);
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** Stops listening and drops every open connection. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.answersHeld = false;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Like {@link cut}, but every open connection ends with a TCP reset (RST), as a crashed peer's would. */
  async reset(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.answersHeld = false;
    for (const socket of this.sockets) socket.resetAndDestroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * After a cut or reset: listens again but answers nothing — connections are accepted and what they
   * send is swallowed, a network that drops packets. {@link restore} ends it.
   */
  async silence(): Promise<void> {
    const server = createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => client.destroy());
      client.resume();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  /**
   * Forwards what clients send until some of it matches `trips` (given each chunk with the end of the
   * connection's chunk before, so a match split across two chunks is seen): from that chunk on, nothing
   * any client sends reaches the service, and `onTrip` runs once. A test kills its client there, at an
   * exact point of its conversation with the service (a write that the service never sees), rather than
   * hoping a kill lands between two writes. The service's answers still flow.
   */
  tripOn(trips: (text: string) => boolean, onTrip: () => void): void {
    const trip = { trips, onTrip, tripped: false };
    this.trip = trip;
    for (const pair of this.pairs) {
      pair[0].unpipe(pair[1]);
      this.watch(pair, trip);
    }
  }

  private watch([client, upstream]: [Socket, Socket], trip: Trip): void {
    let tail = '';
    client.on('data', (chunk: Buffer) => {
      if (trip.tripped) return;
      // latin1: one character a byte, so a chunk ending inside a UTF-8 character still reads whole.
      const text = chunk.toString('latin1');
      if (trip.trips(tail + text)) {
        trip.tripped = true;
        trip.onTrip();
        return;
      }
      tail = text.slice(-TRIP_TAIL);
      upstream.write(chunk);
    }).resume();
  }

  /** Keeps connections open but stops forwarding requests: a server that hangs. */
  stall(): void {
    for (const [client, upstream] of this.pairs) client.unpipe(upstream);
  }

  /**
   * Keeps forwarding what clients send but holds back every answer of the server, on the open
   * connections and on those opened until the next {@link cut} or {@link reset}: the server acts on
   * requests whose replies (acks, confirms, HTTP answers) the client never sees.
   */
  holdAnswers(): void {
    this.answersHeld = true;
    for (const [client, upstream] of this.pairs) upstream.unpipe(client);
  }

  /** Bytes of the server's answers held back so far ({@link holdAnswers}) on the open connections. */
  heldAnswerBytes(): number {
    let bytes = 0;
    for (const [, upstream] of this.pairs) bytes += upstream.readableLength;
    return bytes;
  }

  /** Forwards again what stalled connections sent and send. */
  resume(): void {
    for (const [client, upstream] of this.pairs) client.pipe(upstream);
  }

  /**
   * A link that silently loses everything: open connections stay open and new ones are accepted, but
   * every byte is dropped both ways (nothing is buffered for later, no FIN, no reset) — a partition
   * or a firewall that drops packets, as the client sees it. {@link pass} ends it.
   */
  blackhole(): void {
    this.blackholed = true;
    for (const pair of this.pairs) {
      pair[0].unpipe(pair[1]);
      pair[1].unpipe(pair[0]);
      this.swallow(pair);
    }
  }

  /** A link that refuses: every open connection is closed and new ones are refused (nothing listens). {@link pass} ends it. */
  refuse(): Promise<void> {
    this.blackholed = false;
    return this.cut();
  }

  /**
   * Forwards again: after {@link refuse}, listens on the same port; after {@link blackhole}, the
   * connections that stayed open carry bytes again (what was dropped meanwhile is lost for good).
   */
  async pass(): Promise<void> {
    this.blackholed = false;
    for (const [client, upstream] of this.pairs) {
      client.off('data', drop);
      upstream.off('data', drop);
      client.pipe(upstream).pipe(client);
    }
    if (!this.server) await this.start();
  }

  private swallow(pair: [Socket, Socket]): void {
    // resume(): an unpiped socket is paused, and would buffer what it receives for later instead of dropping it.
    for (const socket of pair) socket.on('data', drop).resume();
  }

  /** Listens again on the same port (ending a silence: its connections are dropped). */
  async restore(): Promise<void> {
    if (this.server) await this.cut();
    return this.start();
  }
}

/** Polls `condition` every `intervalMs`, at most `attempts` times; answers whether it became true. */
export async function eventually(condition: () => Promise<boolean>, attempts = 100, intervalMs = 50): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return false;
}
