import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { ParleyClient } from '@parley/client';
import type { Clock, Logger } from '@parley/core';
import { createLogger, loadConfig, ParleyServer, type ParleyConfig, type PluginEntry } from '@parley/server';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';

/** The admin token of every test host (tests only: it is in the source). */
export const TEST_HOST_ADMIN_TOKEN = 'test-admin-token-0123456789';

/** Options of {@link startTestHost}. */
export interface TestHostOptions {
  /**
   * The plugin list, exactly as `plugins` in the configuration: package names, or paths (relative
   * ones resolve against `config.baseDir`, the working directory by default). A storage plugin is
   * required; nothing is added.
   */
  plugins: PluginEntry[];
  /**
   * Configuration members over the test defaults: loopback, port 0 (a free one; without a `publicUrl`
   * the server then makes its own URL the public one once it listens), private URLs allowed.
   */
  config?: Partial<ParleyConfig>;
  /** All server time comes from it (a `FakeClock` of `@parley/testkit`); the real clock otherwise. */
  clock?: Clock;
  /** Reuse a data directory (restart tests): it is then kept on stop. A new temporary one otherwise, removed on stop. */
  dataDir?: string;
  /** The server's logger; a pino logger at `warn` that discards its lines otherwise. */
  logger?: Logger;
}

/** A running Parley server on 127.0.0.1, with what a test drives it with. */
export interface TestHost {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly adminToken: string;
  /** The typed `@parley/client`, authenticated as admin; `client.instance(key)` scopes it to one instance. */
  readonly client: ParleyClient;
  /** A recording webhook endpoint on 127.0.0.1: point an instance's webhook URLs at `receiver.url`. */
  readonly receiver: HttpReceiver;
  readonly dataDir: string;
  /** The server itself (its context: bus, storage, registry), for assertions the API cannot make. */
  readonly server: ParleyServer;
  /** Closes the server gracefully and the receiver, and removes the data directory unless it was given. Idempotent. */
  stop(): Promise<void>;
}

const discard = () => new Writable({ write: (_chunk, _encoding, done) => done() });

/**
 * Boots the real Parley server — plugin loading and its boot checks, storage `init`, the REST API,
 * the webhook engine — with the given plugins in a temporary data directory, listening on a free
 * loopback port, and starts a webhook receiver beside it.
 */
export async function startTestHost(options: TestHostOptions): Promise<TestHost> {
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'parley-host-'));
  const receiver = await startHttpReceiver();
  try {
    const config = loadConfig({}, {
      port: 0, host: '127.0.0.1', dataDir, allowPrivateUrls: true, logLevel: 'warn', adminToken: TEST_HOST_ADMIN_TOKEN,
      shutdownTimeoutMs: 2000, ...options.config, plugins: options.plugins,
    });
    const logger = options.logger ?? (createLogger({ level: 'warn', destination: discard() }) as unknown as Logger);
    const server = await ParleyServer.create({ config, logger, ...(options.clock ? { clock: options.clock } : {}) });
    const url = await server.listen().catch(async (err: unknown) => {
      await server.close();
      throw err;
    });
    const adminToken = server.adminToken.value;
    let stopped: Promise<void> | undefined;
    return {
      url, adminToken, receiver, dataDir, server,
      client: new ParleyClient({ baseUrl: url, adminToken }),
      stop: () => (stopped ??= (async () => {
        try {
          await server.close();
        } finally {
          await receiver.close();
          if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
        }
      })()),
    };
  } catch (err) {
    await receiver.close();
    if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}
