import { request, type Agent, type ClientRequest, type IncomingMessage } from 'node:http';

/** One parsed SSE block: fields as sent (`data` still JSON text). */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
}

/**
 * A raw Server-Sent Events reader over node:http, for tests that need what a browser's EventSource
 * hides: the status and headers, comment lines (heartbeats), and a client that stops reading.
 */
export class SseClient {
  readonly frames: SseFrame[] = [];
  /** Comment lines received (`: heartbeat`). */
  readonly comments: string[] = [];
  status = 0;
  contentType = '';
  /** The answer's body when it was not a stream (JSON errors). */
  body = '';
  ended = false;
  private rest = '';
  private block: SseFrame = {};
  private res?: IncomingMessage;
  private readonly req: ClientRequest;
  readonly opened: Promise<void>;
  readonly closed: Promise<void>;

  constructor(url: string, headers: Record<string, string> = {}, options: { agent?: Agent; paused?: boolean } = {}) {
    let markClosed!: () => void;
    this.closed = new Promise((resolve) => (markClosed = resolve));
    this.req = request(url, { headers: { Accept: 'text/event-stream', ...headers }, ...(options.agent ? { agent: options.agent } : {}) });
    this.opened = new Promise((resolve, reject) => {
      this.req.on('error', (err) => {
        this.ended = true;
        markClosed();
        reject(err);
      });
      this.req.on('response', (res) => {
        this.res = res;
        this.status = res.statusCode ?? 0;
        this.contentType = String(res.headers['content-type'] ?? '');
        res.setEncoding('utf8');
        const done = () => {
          this.ended = true;
          markClosed();
        };
        res.on('end', done).on('close', done).on('error', done);
        if (options.paused) {
          // Reads nothing: the server's writes pile up in the socket buffers, then in its own.
          res.pause();
        } else {
          res.on('data', (chunk: string) => this.take(chunk));
        }
        resolve();
      });
    });
    this.req.end();
  }

  /** Frames carrying an event id (control frames such as `stream.gap` left out). */
  get events(): SseFrame[] {
    return this.frames.filter((f) => f.id !== undefined);
  }

  /** Parsed `data` of the id-carrying frames. */
  data<T = any>(): T[] {
    return this.events.map((f) => JSON.parse(f.data!) as T);
  }

  close(): void {
    this.req.destroy();
    this.res?.destroy();
  }

  private take(chunk: string): void {
    if (!this.contentType.startsWith('text/event-stream')) {
      this.body += chunk;
      return;
    }
    const lines = (this.rest + chunk).split('\n');
    this.rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (this.block.data !== undefined) this.frames.push(this.block);
        this.block = {};
      } else if (line.startsWith(':')) {
        this.comments.push(line);
      } else {
        const colon = line.indexOf(':');
        const field = line.slice(0, colon);
        const value = line.slice(colon + 2);
        if (field === 'id' || field === 'event' || field === 'data') this.block[field] = value;
      }
    }
  }
}
