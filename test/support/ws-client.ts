import WebSocket from 'ws';

/** One message of an event stream over WebSocket (`id` absent on notices). */
export interface WsMessage {
  id?: string;
  event: string;
  data: any;
}

/** A WebSocket client that records every message; `refused` holds a refused upgrade's status and JSON body. */
export class WsClient {
  readonly messages: WsMessage[] = [];
  readonly pings: number[] = [];
  refused?: { status: number; body: any };
  closeCode?: number;
  readonly ws: WebSocket;
  readonly settled: Promise<void>;
  readonly closed: Promise<void>;

  constructor(url: string, options: WebSocket.ClientOptions = {}) {
    this.ws = new WebSocket(url, options);
    this.ws.on('message', (raw) => this.messages.push(JSON.parse(String(raw)) as WsMessage));
    this.ws.on('ping', () => this.pings.push(Date.now()));
    this.closed = new Promise((resolve) => this.ws.on('close', (code) => {
      this.closeCode = code;
      resolve();
    }));
    this.settled = new Promise((resolve) => {
      this.ws.on('open', () => resolve());
      this.ws.on('error', () => resolve());
      this.ws.on('unexpected-response', (_req, res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          this.refused = { status: res.statusCode ?? 0, body: JSON.parse(text) };
          resolve();
        });
      });
    });
  }

  get events(): WsMessage[] {
    return this.messages.filter((m) => m.id !== undefined);
  }
}
