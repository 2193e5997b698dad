import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';

/** How the listener treats new TCP connections right now. */
export type Admission = 'open' | 'refuse' | 'blackhole';

/** Largest stanza frame the simulator accepts from a client (WhatsApp's frame length is 3 bytes). */
const MAX_PAYLOAD = 16 * 1024 * 1024;

/**
 * The WebSocket endpoint clients connect to, on loopback. It can refuse connections (the port is closed,
 * so connecting fails with ECONNREFUSED) or blackhole them (TCP is accepted, nothing is ever answered;
 * held sockets are dropped when the outage ends), which are the two ways a network outage looks to a client.
 */
export class Listener {
  private server: Server;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD });
  private readonly held = new Set<Socket>();
  private admission: Admission = 'open';
  port = 0;

  constructor(private readonly host: string, private readonly onSocket: (socket: WebSocket) => void) {
    this.server = this.makeServer();
  }

  async listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, this.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : port;
  }

  /** Switches how new connections are treated; leaving an outage drops the sockets it held. */
  async admit(admission: Admission): Promise<void> {
    const before = this.admission;
    this.admission = admission;
    if (before === 'blackhole' && admission !== 'blackhole') {
      for (const socket of this.held) socket.destroy();
      this.held.clear();
    }
    if (admission === 'refuse' && before !== 'refuse') await this.closeServer();
    if (before === 'refuse' && admission !== 'refuse') {
      this.server = this.makeServer();
      await this.listen(this.port);
    }
  }

  async close(): Promise<void> {
    for (const socket of this.held) socket.destroy();
    this.held.clear();
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    if (this.admission !== 'refuse') await this.closeServer();
  }

  private makeServer(): Server {
    const server = createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket only\n');
    });
    server.on('connection', (socket: Socket) => {
      if (this.admission !== 'blackhole') return;
      // Accepted at the TCP level and never answered: the client's handshake or keep-alive times out.
      this.held.add(socket);
      socket.pause();
      socket.once('close', () => this.held.delete(socket));
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (this.admission === 'blackhole') return;
      this.wss.handleUpgrade(req, socket, head, (ws) => this.onSocket(ws));
    });
    return server;
  }

  private closeServer(): Promise<void> {
    const server = this.server;
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
