import type { ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import type { WireKind } from './stream-frames.js';

/** The connection of one stream client, whatever its wire. */
export interface StreamTransport {
  readonly wire: WireKind;
  /** Queues a frame (text, or its UTF-8 bytes) for the client (never blocks; the caller watches {@link buffered}). */
  write(frame: string | Buffer): void;
  /** Bytes written and not yet taken by the client's socket. */
  buffered(): number;
  /** Resolves true once everything written so far has left, false after `timeoutMs` or when the connection closed. */
  drained(timeoutMs: number): Promise<boolean>;
  /** Sends a heartbeat; answers false when the peer did not answer the previous one (a dead WebSocket peer). */
  heartbeat(): boolean;
  /** Ends the stream (graceful shutdown). */
  end(): void;
  /** Drops the connection at once (a client cut off). */
  destroy(): void;
  /** Called once when the connection is gone, however it ended. */
  onClose(listener: () => void): void;
}

/** Server-Sent Events over an HTTP response whose headers the caller has not sent yet. */
export class SseTransport implements StreamTransport {
  readonly wire = 'sse';

  constructor(private readonly res: ServerResponse, retryMs: number) {
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Connection', 'keep-alive');
    // Reverse proxies (nginx) buffer answers unless told not to: events would arrive in bursts.
    res.setHeader('X-Accel-Buffering', 'no');
    res.socket?.setNoDelay(true);
    res.write(`retry: ${retryMs}\n: connected\n\n`);
  }

  write(frame: string | Buffer): void {
    if (this.res.destroyed) return;
    // Frames written in one turn of the event loop (a burst of events) leave in one socket write.
    if (!this.res.writableCorked) {
      this.res.cork();
      setImmediate(() => this.res.uncork());
    }
    this.res.write(frame);
  }

  buffered(): number {
    return this.res.writableLength;
  }

  drained(timeoutMs: number): Promise<boolean> {
    if (this.res.destroyed) return Promise.resolve(false);
    if (!this.res.writableNeedDrain) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.res.off('drain', onDrain).off('close', onClose);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.res.on('drain', onDrain).on('close', onClose);
    });
  }

  heartbeat(): boolean {
    this.write(': heartbeat\n\n');
    return true;
  }

  end(): void {
    this.res.end();
  }

  destroy(): void {
    this.res.destroy();
  }

  onClose(listener: () => void): void {
    // The client may have gone between admission and now: 'close' would never come again.
    if (this.res.closed) queueMicrotask(listener);
    else this.res.once('close', listener);
  }
}

/** One WebSocket (library `ws`): text messages, protocol-level ping/pong heartbeats. */
export class WsTransport implements StreamTransport {
  readonly wire = 'ws';
  private alive = true;

  constructor(private readonly ws: WebSocket) {
    ws.on('pong', () => {
      this.alive = true;
    });
    // Clients send nothing the server acts on; their messages are read and dropped so they cannot pile up.
    ws.on('message', () => undefined);
    ws.on('error', () => ws.terminate());
  }

  write(frame: string | Buffer): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(frame, { binary: false });
  }

  buffered(): number {
    return this.ws.bufferedAmount;
  }

  drained(timeoutMs: number): Promise<boolean> {
    if (this.ws.readyState !== this.ws.OPEN) return Promise.resolve(false);
    if (this.ws.bufferedAmount === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      // An empty frame's callback runs once every frame before it has been written out.
      this.ws.ping(undefined, undefined, (err) => {
        clearTimeout(timer);
        resolve(!err);
      });
    });
  }

  heartbeat(): boolean {
    if (!this.alive) return false;
    this.alive = false;
    if (this.ws.readyState === this.ws.OPEN) this.ws.ping();
    return true;
  }

  end(): void {
    this.ws.close(1001, 'server shutting down');
  }

  destroy(): void {
    this.ws.terminate();
  }

  onClose(listener: () => void): void {
    if (this.ws.readyState === this.ws.CLOSED) queueMicrotask(listener);
    else this.ws.once('close', listener);
  }
}
