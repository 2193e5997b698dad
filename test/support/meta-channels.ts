import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signatureHeader } from '@parley/meta-graph/testing';
import type { TestResponse, TestServer } from './test-server.js';

/** The Meta channels the server mounts webhook routes for. */
export type MetaChannel = 'instagram' | 'messenger';

/**
 * A webhook body of the channel plugin's fixtures, byte for byte (compact JSON with `\uXXXX`
 * escapes, as Meta sends it), so the signature is checked over exactly what Meta would sign.
 */
export function metaFixture(channel: MetaChannel, name: string): Buffer {
  return readFileSync(new URL(`../../../plugins/channel-${channel}/test/fixtures/${name}.json`, import.meta.url));
}

/** POSTs a raw webhook body to `/<channel>/webhook`, signed with `appSecret` unless a header is given. */
export function postWebhook(
  t: TestServer,
  channel: MetaChannel,
  body: Buffer,
  signing: { appSecret: string } | { header?: string },
): Promise<TestResponse> {
  const header = 'appSecret' in signing ? signatureHeader(body, signing.appSecret) : signing.header;
  return t.request('POST', `/${channel}/webhook`, new Uint8Array(body), {
    'content-type': 'application/json',
    ...(header === undefined ? {} : { 'x-hub-signature-256': header }),
  });
}

/** Graph's `appsecret_proof` of a token, to check what the channel sent to the mock Graph API. */
export function appSecretProof(accessToken: string, appSecret: string): string {
  return createHmac('sha256', appSecret).update(accessToken).digest('hex');
}

/** A 1×1 PNG. */
export const PNG_PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** A loopback server the media resolver fetches images from. */
export interface ImageServer {
  /** URL of the PNG at `path`. */
  url(path: string): string;
  /** Paths requested, in order. */
  readonly hits: string[];
  close(): Promise<void>;
}

/** Serves {@link PNG_PIXEL} as `image/png` at any path on 127.0.0.1. */
export async function startImageServer(): Promise<ImageServer> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG_PIXEL.length) });
    res.end(PNG_PIXEL);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    hits,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
