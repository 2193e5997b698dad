import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { sandboxLinks } from '@parley/channel-sandbox';
import { startTestServer } from '../support/test-server.js';
import { linkCloses } from './fixtures/link-close-storage.plugin.js';

const NUMBER = '5511960000071';
const SHUTDOWN_TIMEOUT_MS = 1000;
const STORAGE = fileURLToPath(new URL('./fixtures/link-close-storage.plugin.js', import.meta.url));

/**
 * A graceful stop (SIGTERM) whose sandbox phone's link close failed its first write: the retry waits
 * a pause, and the process closed storage and exited before it — the link recorded open for ever, a
 * phone "still linked" to a process that is gone. The sandbox driver's close now writes it before
 * storage closes; with the store blackholed it gives up once the stop's time (`shutdownTimeoutMs`) is
 * spent, saying so, and the stop ends.
 */
describe('sandbox: link records at a graceful stop', () => {
  for (const then of ['pass', 'hang'] as const) {
    it(then === 'pass'
      ? 'a close whose first write failed is written before storage closes'
      : 'with the store blackholed after that failure, the stop ends once shutdownTimeoutMs is spent, saying which link stays open', async () => {
      linkCloses.then = then;
      const t = await startTestServer({
        plugins: [{ package: STORAGE }, { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } }, { package: '@parley/webhook-native' }],
        captureLogs: true, config: { shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS },
      });
      try {
        await t.connectedSandbox({ name: 'alice', number: NUMBER });
        const stopping = performance.now();
        await t.server.close();
        const tookMs = performance.now() - stopping;
        const open = (await sandboxLinks(linkCloses.storage!, NUMBER)).filter((l) => l.closedAt === undefined);
        const notClosed = t.logs.filter((l) => l.includes('sandbox link records not closed at shutdown'));
        assert.equal(linkCloses.attempts, 2, 'the first write refused, the retry made');
        if (then === 'pass') {
          assert.deepEqual(open, [], 'every link of the phone is closed');
          assert.deepEqual(notClosed, []);
        } else {
          assert.equal(open.length, 1, 'the retry never answered');
          assert.equal(notClosed.length, 1, t.logs.join(''));
          assert.match(notClosed[0]!, /shutdownTimeoutMs spent/);
          assert.match(notClosed[0]!, new RegExp(NUMBER));
          // The wait ends with shutdownTimeoutMs; what follows it on memory storage takes next to nothing.
          assert.ok(tookMs < 2 * SHUTDOWN_TIMEOUT_MS, `the stop took ${Math.round(tookMs)} ms`);
        }
      } finally {
        await t.stop();
      }
    });
  }
});
