import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SignalSend } from '../network-api.js';

/** A send the mock network took, with the timestamp it gave it. */
export interface MockSent extends SignalSend {
  timestamp: number;
}

/**
 * A local stand-in for the Signal-like network of this example, on a loopback port: accounts and
 * groups the test adds, the sends it took (in order), and timestamps that only grow. An unknown
 * account or recipient answers 404, as the network would.
 */
export class MockSignalNetwork {
  readonly sent: MockSent[] = [];
  private readonly accounts = new Map<string, string | undefined>();
  private readonly groups = new Set<string>();
  private last = 0;

  private constructor(private readonly server: Server, readonly url: string, private readonly now: () => number) {}

  /** Starts the mock on a free loopback port; `now` stamps sends (Unix milliseconds). */
  static async start(now: () => number = Date.now): Promise<MockSignalNetwork> {
    let network: MockSignalNetwork | undefined;
    const server = createServer((req, res) => void network!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    network = new MockSignalNetwork(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, now);
    return network;
  }

  /** Registers an account (a lower-case UUID) with an optional profile name. */
  addAccount(uuid: string, name?: string): void {
    this.accounts.set(uuid, name);
  }

  /** Registers a group recipient (`group.<base64>`). */
  addGroup(id: string): void {
    this.groups.add(id);
  }

  /** A timestamp later than every one given so far. */
  nextTimestamp(): number {
    this.last = Math.max(this.last + 1, this.now());
    return this.last;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> : {};
    const answer = (status: number, json: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    };
    const connect = /^\/v1\/accounts\/([^/]+)\/connect$/.exec(req.url ?? '');
    if (req.method === 'POST' && connect) {
      const uuid = decodeURIComponent(connect[1]!);
      if (!this.accounts.has(uuid)) return answer(404, { error: `account ${uuid}` });
      const name = this.accounts.get(uuid);
      return answer(200, { uuid, ...(name ? { name } : {}) });
    }
    if (req.method === 'POST' && req.url === '/v2/send') {
      const send = body as unknown as SignalSend;
      if (!this.accounts.has(send.account)) return answer(404, { error: `account ${send.account}` });
      if (!this.accounts.has(send.recipient) && !this.groups.has(send.recipient)) return answer(404, { error: `recipient ${send.recipient}` });
      const timestamp = this.nextTimestamp();
      this.sent.push({ ...send, timestamp });
      return answer(200, { timestamp });
    }
    answer(404, { error: 'no such endpoint' });
  }
}
