import { connect, type Socket } from 'node:net';

/** What a raw connection saw of its answer. */
export interface RawAnswer {
  /** The answer's status, undefined when none came within the wait. */
  status?: number;
  headers: Record<string, string>;
  body?: any;
  /** The server ended or reset the connection. */
  closedByServer: boolean;
  /** Milliseconds from opening the connection until the answer was complete or the wait ended. */
  ms: number;
}

/**
 * A request written by hand over a loopback socket, so that a test controls when each byte of its
 * body goes out (a client sending slowly, or stalling). `open` writes the head; `send` more bytes;
 * `answer` waits (at most `waitMs`) for the server to answer and close, then destroys the socket.
 */
export class RawUpload {
  private readonly chunks: Buffer[] = [];
  private closedByServer = false;
  private readonly opened = performance.now();
  private readonly ended: Promise<void>;

  private constructor(private readonly socket: Socket) {
    this.ended = new Promise((resolve) => {
      socket.on('end', () => { this.closedByServer = true; resolve(); });
      socket.on('error', () => { this.closedByServer = true; resolve(); });
    });
    socket.on('data', (c: Buffer) => this.chunks.push(c));
  }

  /** Connects to `url`'s host and port and writes `method path` with `headers` (the body is up to the caller). */
  static open(url: string, method: string, path: string, headers: Record<string, string>): RawUpload {
    const { hostname, port } = new URL(url);
    const upload = new RawUpload(connect(Number(port), hostname));
    const head = [`${method} ${path} HTTP/1.1`, `Host: ${hostname}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    upload.socket.write(`${head.join('\r\n')}\r\n\r\n`);
    return upload;
  }

  /** Writes body bytes (ignored once the server closed the connection). */
  send(bytes: Buffer | string): void {
    if (!this.socket.destroyed && this.socket.writable) this.socket.write(bytes);
  }

  /** Whether any answer byte arrived so far. */
  get answered(): boolean {
    return this.chunks.length > 0;
  }

  /** Waits for the server to close the connection (at most `waitMs`), destroys it, and parses what it answered. */
  async answer(waitMs = 5000): Promise<RawAnswer> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.ended, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    const ms = performance.now() - this.opened;
    this.socket.destroy();
    const text = Buffer.concat(this.chunks).toString('utf8');
    const split = text.indexOf('\r\n\r\n');
    if (split < 0) return { headers: {}, closedByServer: this.closedByServer, ms };
    const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const body = text.slice(split + 4);
    return { status: Number(statusLine!.split(' ')[1]), headers, body: body && headers['content-type']?.includes('json') ? JSON.parse(body) : body, closedByServer: this.closedByServer, ms };
  }
}
