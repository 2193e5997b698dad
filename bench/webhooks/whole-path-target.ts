/**
 * The Parley process of bench/webhooks' whole-path run: a real server on SQLite with the sandbox
 * channel and the native webhook format (private URLs allowed: the receiver is on loopback), a
 * sending sandbox phone and BENCH_PEERS (20) receiving ones. With argv[3] `webhooks`, each receiving
 * phone has a native webhook to `<receiver url>/lane/<n>` (argv[2]); with `none`, no webhook at all
 * (the same load without the webhook path, to tell its cost apart). Prints one JSON line
 * `{ port, key, to, peerKeys }` on stdout once it listens; stops on SIGTERM.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, loadConfig, ParleyServer } from '@parley/server';
import type { Logger } from '@parley/core';

const receiverUrl = process.argv[2]!;
const webhooks = process.argv[3] === 'webhooks';
const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-whole-path-'));
const config = loadConfig({}, {
  port: 0, host: '127.0.0.1', dataDir, logLevel: 'warn', defaultChannel: 'sandbox', adminToken: 'bench-admin-token-0123456789', allowPrivateUrls: true,
  plugins: [{ package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }],
  queue: { enabled: true, maxQueued: 1_000_000, leaseMs: 60_000, recheckMs: 1_000, concurrency: 64 },
});
const server = await ParleyServer.create({ config, logger: createLogger({ level: 'warn' }) as unknown as Logger });
const url = await server.listen();
const admin = { authorization: 'Bearer bench-admin-token-0123456789', 'content-type': 'application/json' };
const peers = Array.from({ length: Number(process.env.BENCH_PEERS ?? 20) }, (_, i) => String(5511970000002 + i));
const keys: string[] = [];
for (const [n, number] of ['5511970000001', ...peers].entries()) {
  const res = await fetch(`${url}/admin/instances`, { method: 'POST', headers: admin, body: JSON.stringify({ channel: 'sandbox', options: { number } }) });
  const key = ((await res.json()) as { data: { key: string } }).data.key;
  await fetch(`${url}/${key}/instance`, { method: 'POST' });
  await fetch(`${url}/sandbox/${key}/scan`, { method: 'POST' });
  if (n > 0 && webhooks) {
    const res = await fetch(`${url}/${key}/instance`, {
      method: 'PUT', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ allowWebhook: true, webhookFormat: 'native', webhookMessage: `${receiverUrl}/lane/${n - 1}` }),
    });
    if (res.status !== 200) throw new Error(`webhook settings: HTTP ${res.status} ${await res.text()}`);
  }
  keys.push(key);
}
process.on('SIGTERM', () => void server.close().then(() => {
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}));
process.stdout.write(`${JSON.stringify({ port: Number(new URL(url).port), key: keys[0], to: peers, peerKeys: keys.slice(1) })}\n`);
