import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ParleyConfig } from '@parley/server';
import { startTestHost, type TestHost } from '@parley/testkit/host';

/** A real server (SQLite, the sandbox channel, native webhooks) and an empty working directory for `parley`. */
export interface CliHost {
  host: TestHost;
  /** The working directory `parley` runs in (no ./data: the token comes from the test). */
  cwd: string;
  /** `--url` and `--token` of this server. */
  flags: string[];
  stop(): Promise<void>;
}

/** Starts the server: `sandbox` are the sandbox driver's options, `config` members over the test's; webhooks retry never (a failed delivery is a dead letter at once). */
export async function startCliHost(sandbox: Record<string, unknown> = {}, config: Partial<ParleyConfig> = {}): Promise<CliHost> {
  const host = await startTestHost({
    plugins: [{ package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox', options: sandbox }, { package: '@parley/webhook-native' }],
    config: {
      defaultChannel: 'sandbox',
      webhooks: { timeoutMs: 1_000, leaseMs: 2_500, stopTimeoutMs: 1_000, retry: { schedule: [], jitter: 0 }, housekeeping: { sweepCron: '* * * * * *' } },
      ...config,
    },
  });
  const cwd = mkdtempSync(join(tmpdir(), 'parley-cli-cwd-'));
  return {
    host, cwd, flags: ['--url', host.url, '--token', host.adminToken],
    stop: async () => {
      await host.stop();
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}
