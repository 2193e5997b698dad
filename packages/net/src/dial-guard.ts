import { randomBytes } from 'node:crypto';
import { connect, createServer, isIP, type AddressInfo, type Server, type Socket } from 'node:net';
import { Socks5Server } from '@pondwader/socks5-server';
import { dialAddress, systemResolve, type ResolveHost } from './resolve-host.js';

/** What a client of a {@link DialGuard} hands the library that dials: a SOCKS5 proxy with credentials of its own. */
export interface GuardedProxy {
  host: string;
  port: number;
  username: string;
  password: string;
}

/** One library's use of a {@link DialGuard}. */
export interface DialGuardClient {
  readonly proxy: GuardedProxy;
  /** The latest dial refused for this client (`127.0.0.1:27017 is a private network address`), if any. */
  lastRefusal(): string | undefined;
  /** Ends this client: its credentials stop working, and the guard stops listening once no client is left. */
  release(): Promise<void>;
}

/** Opens a TCP connection to a checked address (tests point addresses at loopback listeners). */
export type Dial = (address: string, port: number) => Socket;

/** How a {@link DialGuard} reaches the network: the system resolver and `net.connect` by default. */
export interface DialGuardNetwork {
  resolve?: ResolveHost;
  dial?: Dial;
}

interface Listening {
  server: Server;
  port: number;
}

interface ClientState {
  password: string;
  refusal?: string;
  sockets: Set<Socket>;
}

/**
 * Checks every address a library dials on its own, for libraries that take a SOCKS5 proxy but no
 * per-connection hook: the MongoDB driver dials the replica-set members a server names in its
 * `hello` answer, IP literals included, which a `lookup` option never sees. The guard is a SOCKS5
 * relay on 127.0.0.1 (through `@pondwader/socks5-server`) that resolves each destination itself and
 * refuses, without dialling, one of whose addresses is private (`CONNECTION_NOT_ALLOWED`; DNS
 * rebinding included: the address checked is the address dialled). Each client gets random
 * credentials, so no other local process can use the relay, and its refusals are recorded for its
 * error messages. The relay listens while it has clients (its listening socket unref'd: it never
 * holds the process); releasing a client closes the connections relayed for it.
 */
export class DialGuard {
  private listening?: Promise<Listening>;
  private readonly clients = new Map<string, ClientState>();

  private readonly resolve: ResolveHost;
  private readonly dial: Dial;

  constructor(network: DialGuardNetwork = {}) {
    this.resolve = network.resolve ?? systemResolve;
    this.dial = network.dial ?? ((address, port) => connect({ host: address, port }));
  }

  /** A new client, starting the relay when it is the first. */
  async client(): Promise<DialGuardClient> {
    const username = randomBytes(12).toString('hex');
    const state: ClientState = { password: randomBytes(24).toString('hex'), sockets: new Set() };
    this.clients.set(username, state);
    const listening = (this.listening ??= this.listen());
    let port: number;
    try {
      port = (await listening).port;
    } catch (err) {
      this.clients.delete(username);
      // The next client tries to listen again.
      if (this.listening === listening) this.listening = undefined;
      throw err;
    }
    return {
      proxy: { host: '127.0.0.1', port, username, password: state.password },
      lastRefusal: () => state.refusal,
      release: () => this.release(username),
    };
  }

  private async release(username: string): Promise<void> {
    const state = this.clients.get(username);
    if (!state) return;
    this.clients.delete(username);
    for (const socket of state.sockets) socket.destroy();
    if (this.clients.size > 0 || !this.listening) return;
    const listening = this.listening;
    this.listening = undefined;
    // Stops listening; connections still in their handshake end with their clients.
    (await listening).server.close();
  }

  private listen(): Promise<Listening> {
    const socks = new Socks5Server();
    socks.setAuthHandler((connection) => this.clients.get(connection.username)?.password === connection.password);
    socks.setConnectionHandler((connection, sendStatus) => {
      const state = this.clients.get(connection.username ?? '');
      connection.socket.on('error', () => undefined);
      if (!state || connection.command !== 'connect') return sendStatus(state ? 'COMMAND_NOT_SUPPORTED' : 'CONNECTION_NOT_ALLOWED');
      const client = connection.socket as Socket;
      state.sockets.add(client);
      client.once('close', () => state.sockets.delete(client));
      void this.relay(state, client, connection.destAddress, connection.destPort, sendStatus);
    });
    const server = createServer((socket) => {
      socket.setNoDelay();
      socks._handleConnection(socket);
    });
    return new Promise<Listening>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.unref();
        resolve({ server, port: (server.address() as AddressInfo).port });
      });
    });
  }

  private async relay(state: ClientState, client: Socket, host: string, port: number, sendStatus: (status: 'REQUEST_GRANTED' | 'CONNECTION_NOT_ALLOWED' | 'HOST_UNREACHABLE' | 'CONNECTION_REFUSED') => void): Promise<void> {
    let address: string;
    try {
      const dial = await dialAddress(host, host, this.resolve, false);
      if (dial.privateAddress !== undefined) {
        state.refusal = dial.privateAddress === host
          ? `${isIP(host) === 6 ? `[${host}]` : host}:${port} is a private network address`
          : `${host} resolves to a private address (${dial.privateAddress})`;
        return sendStatus('CONNECTION_NOT_ALLOWED');
      }
      address = dial.address;
    } catch {
      return sendStatus('HOST_UNREACHABLE');
    }
    if (client.destroyed) return;
    const upstream = this.dial(address, port);
    upstream.setNoDelay();
    state.sockets.add(upstream);
    upstream.once('close', () => state.sockets.delete(upstream));
    client.once('close', () => upstream.destroy());
    let connected = false;
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (!connected) sendStatus(err.code === 'ECONNREFUSED' ? 'CONNECTION_REFUSED' : 'HOST_UNREACHABLE');
      client.destroy();
    });
    upstream.once('connect', () => {
      connected = true;
      sendStatus('REQUEST_GRANTED');
      client.pipe(upstream).pipe(client);
    });
  }
}
