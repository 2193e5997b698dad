import { decodeBinaryNode, encodeBinaryNode } from '@whiskeysockets/baileys';
import type { BinaryNode, proto } from '@whiskeysockets/baileys';
import type { WebSocket } from 'ws';
import { encodeFrame, FrameReader } from './frames.js';
import { NoiseResponder } from './noise.js';
import type { NoiseTransport } from './noise.js';
import type { ServerIdentity } from './certificates.js';

/** What a connection reports to the network once its handshake is done, and for every stanza after. */
export interface ConnectionHandler {
  /** The handshake completed: the client's static key and its login or registration payload. */
  onLogin(connection: ClientConnection, payload: proto.ClientPayload): void;
  onNode(connection: ClientConnection, node: BinaryNode): void;
  onClose(connection: ClientConnection): void;
}

let nextConnectionId = 1;

/**
 * One client's WebSocket: WhatsApp's frames, the Noise handshake as responder, then binary nodes both ways.
 * A client that does not finish the handshake within `handshakeTimeoutMs` is disconnected, so a silent
 * peer holds a socket for a bounded time only.
 */
export class ClientConnection {
  readonly id = nextConnectionId++;
  /** The client's static Noise key (its `noiseKey`), known after the handshake. */
  clientStatic: Buffer | undefined;
  /** Set by the network once the connection is bound to a device (logged in or pairing). */
  deviceJid: string | undefined;
  private readonly reader = new FrameReader();
  private readonly noise: NoiseResponder;
  private readonly certificateChain: Buffer;
  private transport: NoiseTransport | undefined;
  private step: 'hello' | 'finish' | 'open' | 'closed' = 'hello';
  private readonly handshakeTimer: NodeJS.Timeout;
  /** Decoding is asynchronous (compressed nodes); this keeps stanzas in arrival order. */
  private inbound: Promise<void> = Promise.resolve();

  constructor(private readonly socket: WebSocket, identity: ServerIdentity, private readonly handler: ConnectionHandler,
    handshakeTimeoutMs: number) {
    this.noise = new NoiseResponder(identity.staticKey);
    this.certificateChain = identity.certificateChain;
    this.handshakeTimer = setTimeout(() => this.terminate(), handshakeTimeoutMs);
    socket.on('message', (data: Buffer) => this.receive(data));
    socket.on('close', () => this.closed());
    socket.on('error', () => this.terminate());
  }

  /** While set (a blackhole outage), nothing is read from or written to this client. */
  silenced = false;
  /** A slow link: every frame, either way, arrives this much later (0: at once). Frames keep their order. */
  latencyMs = 0;
  /** Frames held by a slow link, each way, in order, with when each is due. */
  private readonly held = { in: [] as Array<{ at: number; work: () => void }>, out: [] as Array<{ at: number; work: () => void }> };
  private readonly drains: { in?: NodeJS.Timeout; out?: NodeJS.Timeout } = {};

  get isOpen(): boolean {
    return this.step === 'open';
  }

  /** Sends a stanza; silently dropped once the socket is gone (the client will never read it). */
  send(node: BinaryNode): void {
    if (this.step !== 'open' || !this.transport || this.silenced) return;
    this.write(encodeFrame(this.transport.encrypt(encodeBinaryNode(node))));
  }

  /**
   * Runs `work` after the link's latency, after every frame of the same way held before it (one queue
   * and one timer per way, so a latency lowered mid-stream never lets a frame overtake another).
   */
  private later(way: 'in' | 'out', work: () => void): void {
    const queue = this.held[way];
    if (this.latencyMs <= 0 && queue.length === 0) return work();
    queue.push({ at: Date.now() + this.latencyMs, work });
    if (!this.drains[way]) this.drain(way);
  }

  private drain(way: 'in' | 'out'): void {
    const queue = this.held[way];
    while (queue.length > 0 && queue[0]!.at <= Date.now()) {
      const { work } = queue.shift()!;
      if (this.step !== 'closed') work();
    }
    this.drains[way] = queue.length > 0 ? setTimeout(() => this.drain(way), queue[0]!.at - Date.now()) : undefined;
  }

  private write(frame: Buffer): void {
    this.later('out', () => this.socket.send(frame));
  }

  /** Closes the WebSocket normally (the client sees its socket close). */
  close(): void {
    if (this.step === 'closed') return;
    this.socket.close();
    this.closed();
  }

  /** Drops the TCP connection without a closing handshake. */
  terminate(): void {
    this.socket.terminate();
    this.closed();
  }

  private receive(data: Buffer): void {
    this.later('in', () => this.read(data));
  }

  private read(data: Buffer): void {
    if (this.silenced) return;
    let frames: Buffer[];
    try {
      frames = this.reader.push(data);
    } catch {
      this.terminate();
      return;
    }
    for (const frame of frames) this.frame(frame);
  }

  private frame(frame: Buffer): void {
    try {
      if (this.step === 'hello') {
        this.write(encodeFrame(this.noise.serverHello(frame, this.certificateChain)));
        this.step = 'finish';
      } else if (this.step === 'finish') {
        const finish = this.noise.clientFinish(frame);
        clearTimeout(this.handshakeTimer);
        this.clientStatic = finish.clientStatic;
        this.transport = finish.transport;
        this.step = 'open';
        this.handler.onLogin(this, finish.payload);
      } else if (this.step === 'open' && this.transport) {
        const plain = this.transport.decrypt(frame);
        this.inbound = this.inbound.then(async () => {
          const node = await decodeBinaryNode(plain);
          if (this.step === 'open') this.handler.onNode(this, node);
        }).catch(() => this.terminate());
      }
    } catch {
      // A frame that does not decrypt or parse ends the session, as a real server drops such a client.
      this.terminate();
    }
  }

  private closed(): void {
    if (this.step === 'closed') return;
    clearTimeout(this.handshakeTimer);
    clearTimeout(this.drains.in);
    clearTimeout(this.drains.out);
    const wasOpen = this.step === 'open';
    this.step = 'closed';
    if (wasOpen) this.handler.onClose(this);
  }
}
