import { isParleyError } from '@parley/core';
import type { ParleyConfig } from '@parley/server';
import { createTestDatabase } from '@parley/storage-postgres/testing';
import { startHttpReceiver, TcpProxy, type HttpReceiver } from '@parley/testkit';
import { startTestServer, type TestServer } from './test-server.js';

/** Starts of the server tried while a start-up statement times out (below). */
const START_ATTEMPTS = 3;

/** A server on a fresh PostgreSQL database reached through a proxy the test cuts, with a webhook receiver. */
export interface OutageServer {
  t: TestServer;
  proxy: TcpProxy;
  receiver: HttpReceiver;
  /** Stops the server, the receiver and the proxy, and drops the database; safe to call whatever failed. */
  close(): Promise<void>;
}

/**
 * {@link OutageServer} with the sandbox channel and native webhooks, its statements bounded by a short
 * `commandTimeoutMs` (1 s; `sandbox`: the sandbox channel's options) so that a silent database fails requests within the test's phases. On a
 * loaded machine that bound can also cut the start-up's migration short: such a start is tried again
 * (a fresh database each time) rather than failing the suite for the machine's speed.
 */
export async function startOutageServer(
  url: string, name: string, config: Partial<ParleyConfig> = {}, sandbox: Record<string, unknown> = {},
): Promise<OutageServer> {
  const target = new URL(url);
  const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
  await proxy.start();
  const receiver = await startHttpReceiver();
  const dropped: (() => Promise<void>)[] = [];
  const closeRest = async () => {
    await receiver.close();
    await proxy.cut();
    for (const drop of dropped) await drop();
  };
  for (let attempt = 1; ; attempt++) {
    const database = await createTestDatabase(url, name);
    dropped.push(() => database.drop());
    const proxied = new URL(database.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    try {
      const t = await startTestServer({
        plugins: [
          { package: '@parley/storage-postgres', options: { url: proxied.toString(), commandTimeoutMs: 1_000, poolSize: 4 } },
          { package: '@parley/channel-sandbox', options: sandbox }, { package: '@parley/webhook-native' },
        ],
        config,
        captureLogs: true,
      });
      return { t, proxy, receiver, close: async () => { await t.stop(); await closeRest(); } };
    } catch (err) {
      if (attempt >= START_ATTEMPTS || !isParleyError(err) || err.code !== 'service_unavailable') {
        await closeRest();
        throw err;
      }
    }
  }
}
