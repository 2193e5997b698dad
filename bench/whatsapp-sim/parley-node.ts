/**
 * The Parley server of bench/whatsapp-sim, in a process of its own (forked with IPC and `--expose-gc`
 * by the bench, so its memory and CPU are its own): SQLite storage in a fresh data directory, the
 * sandbox channel, the WhatsApp channel (`@parley/channel-baileys`, Baileys' real socket) pointed at the
 * simulator named by BENCH_SIM_URL, whose root key (BENCH_SIM_ROOT, base64) this process trusts, and
 * native webhooks (loopback receivers allowed). Sends `{cmd:'listening', url}` once it listens.
 * BENCH_DATA_DIR names a data directory to use and keep (a node restarted on the same storage restores
 * its instances); BENCH_RESTORE_PER_SECOND sets `restore.perSecond.whatsapp` (Parley's default is 2).
 *
 * IPC: `{cmd:'memory'}` answers `{cmd:'memory', rss, heapUsed, external}` (bytes) after full GCs;
 * `{cmd:'snapshot', file}` writes a heap snapshot there (after full GCs) and answers `{cmd:'snapshot'}`;
 * `{cmd:'restored'}` answers `{cmd:'restored'}` once the start-up restore has finished (every restored
 * instance's connect returned: for WhatsApp, logged in or failed);
 * `{cmd:'stop'}` closes the server, deletes the data directory (unless it was BENCH_DATA_DIR) and exits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import type { Logger } from '@parley/core';
import { createLogger, loadConfig, ParleyServer } from '@parley/server';
import { trustSimulatorRoot } from '@parley/whatsapp-sim';
import { BENCH_ADMIN_TOKEN } from './processes.js';

type Command = { cmd: 'memory' } | { cmd: 'snapshot'; file: string } | { cmd: 'restored' } | { cmd: 'stop' };

const gc = (globalThis as { gc?: () => void }).gc;

async function settledMemory(): Promise<{ rss: number; heapUsed: number; external: number }> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rss, heapUsed, external };
}

async function main(): Promise<void> {
  if (!gc) throw new Error('run with --expose-gc');
  const simUrl = process.env.BENCH_SIM_URL;
  if (!simUrl || !process.env.BENCH_SIM_ROOT) throw new Error('BENCH_SIM_URL and BENCH_SIM_ROOT are required');
  trustSimulatorRoot(Buffer.from(process.env.BENCH_SIM_ROOT, 'base64'));
  const kept = process.env.BENCH_DATA_DIR;
  const dataDir = kept ?? mkdtempSync(join(tmpdir(), 'parley-bench-sim-'));
  const perSecond = Number(process.env.BENCH_RESTORE_PER_SECOND ?? 0);
  const config = loadConfig({}, {
    port: 0, host: '127.0.0.1', dataDir, logLevel: 'warn', defaultChannel: 'sandbox', adminToken: BENCH_ADMIN_TOKEN, allowPrivateUrls: true,
    ...(perSecond > 0 ? { restore: { concurrency: 64 /* Parley's default */, perSecond: { whatsapp: perSecond } } } : {}),
    plugins: [
      { package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' },
      // Linking many instances at once on a loaded machine: QRs and the 515 restart may take a while.
      { package: '@parley/channel-baileys', options: { webSocketUrl: simUrl, logLevel: 'silent', connectTimeoutMs: 60_000, qrWaitMs: 120_000 } },
    ],
  });
  const server = await ParleyServer.create({ config, logger: createLogger({ level: 'warn', destination: process.stderr }) as unknown as Logger });
  const url = await server.listen();
  process.on('message', (message: Command) => {
    if (message.cmd === 'memory') void settledMemory().then((memory) => process.send!({ cmd: 'memory', ...memory }));
    if (message.cmd === 'snapshot') {
      void settledMemory().then(() => {
        writeHeapSnapshot(message.file);
        process.send!({ cmd: 'snapshot' });
      });
    }
    if (message.cmd === 'restored') void server.restored().then(() => process.send!({ cmd: 'restored' }));
    if (message.cmd === 'stop') {
      void server.close().finally(() => {
        if (!kept) rmSync(dataDir, { recursive: true, force: true });
        process.exit(0);
      });
    }
  });
  process.send!({ cmd: 'listening', url });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
