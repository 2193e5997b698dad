import { randomUUID } from 'node:crypto';
import { request, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Attempt } from './answer-relay.js';
import { FORWARDED_BY_HEADER, isRetryableAnswer, REQUEST_ID_HEADER, SECRET_HEADER } from './forwarder.js';

/** How long the owner may take to answer a forwarded handshake before the attempt counts as failed (and is retried). */
const HANDSHAKE_TIMEOUT_MS = 10_000;

/** Framing headers of a relayed refusal: the relay sets its own. */
const FRAMING = /^(connection|keep-alive|transfer-encoding|content-length)$/i;

/** The raw header lines of an answer, as they came (`Name: value\r\n` each), but those named by `skip`. */
function headerLines(raw: string[], skip?: RegExp): string {
  let out = '';
  for (let i = 0; i + 1 < raw.length; i += 2) if (!skip?.test(raw[i]!)) out += `${raw[i]}: ${raw[i + 1]}\r\n`;
  return out;
}

/**
 * Proxies WebSocket upgrades (the per-instance event stream) to the node owning their instance: the
 * handshake is sent on with the cluster secret, the forwarding node's id and the request id; the
 * owner's `101` and then the bytes flow both ways unchanged until either side closes, which closes
 * the other. An owner that refuses the handshake has its answer relayed to the client, except a
 * "retry" 503 (`instance_moving`, `shutting_down`) or no answer at all, which answer `retry`.
 */
export class UpgradeForwarder {
  private readonly open = new Set<Duplex>();

  constructor(private readonly nodeId: string, private readonly secret: string) {}

  /** One attempt at `target` (an origin such as `http://10.0.0.5:8080`). */
  forward(target: string, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<Attempt> {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && name !== 'host') headers[name] = value;
    headers[FORWARDED_BY_HEADER] = this.nodeId;
    headers[SECRET_HEADER] = this.secret;
    headers[REQUEST_ID_HEADER] = (req.headers[REQUEST_ID_HEADER] as string | undefined) ?? randomUUID();
    return new Promise<Attempt>((resolve) => {
      const out = request(`${target}${req.url ?? '/'}`, { method: 'GET', headers, agent: false, timeout: HANDSHAKE_TIMEOUT_MS });
      out.once('timeout', () => out.destroy());
      out.once('error', () => resolve('retry'));
      out.once('upgrade', (answer: IncomingMessage, upstream: Duplex, upstreamHead: Buffer) => {
        if (socket.destroyed) {
          upstream.destroy();
          resolve('answered');
          return;
        }
        socket.write(`HTTP/1.1 101 Switching Protocols\r\n${headerLines(answer.rawHeaders)}\r\n`);
        if (upstreamHead.length > 0) socket.write(upstreamHead);
        if (head.length > 0) upstream.write(head);
        this.pipe(socket, upstream);
        resolve('answered');
      });
      out.once('response', (answer: IncomingMessage) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.once('error', () => resolve('retry'));
        answer.once('end', () => {
          const body = Buffer.concat(chunks);
          if (answer.statusCode === 503 && isRetryableAnswer(body.toString('utf8'))) return resolve('retry');
          const head = `HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}\r\n${headerLines(answer.rawHeaders, FRAMING)}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
          socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
          resolve('answered');
        });
      });
      out.end();
    });
  }

  /** Bytes both ways; the first side to close or fail closes the other. */
  private pipe(client: Duplex, upstream: Duplex): void {
    this.open.add(client);
    const close = () => {
      this.open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    for (const side of [client, upstream]) {
      side.once('close', close);
      side.once('error', close);
    }
    upstream.pipe(client);
    client.pipe(upstream);
  }

  /** Closes every proxied stream (shutdown): their clients reconnect to another node and resume from their last id. */
  close(): void {
    for (const socket of [...this.open]) socket.destroy();
  }
}
