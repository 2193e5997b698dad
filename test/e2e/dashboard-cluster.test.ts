import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { serviceUrlOrSkip } from '@parley/testkit';
import { startTestHost, type TestHost } from '@parley/testkit/host';
import { deleteKeys } from '@parley/storage-redis/testing';
import { browserUnavailable, launchChromium, screenshot, signIn } from '../support/browser.js';

const skip = browserUnavailable();

/** On a cluster node the instance list names the node running each instance (issue 15: "owner node"). */
describe('dashboard on a cluster node: the owner column', { skip, timeout: 120_000 }, () => {
  const redisUrl = serviceUrlOrSkip('REDIS_URL', 'the dashboard on a cluster node', { example: 'redis://127.0.0.1:6379' });
  if (!redisUrl) return;
  const keyPrefix = `parley-test:dashboard-cluster:${process.pid}-${randomBytes(4).toString('hex')}:`;
  let host: TestHost;
  let browser: Browser;
  let page: Page;

  before(async () => {
    host = await startTestHost({
      plugins: [
        { package: '@parley/storage-redis', options: { url: redisUrl, keyPrefix } },
        { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
        { package: '@parley/webhook-native' },
      ],
      // One node is a cluster too: it owns what it creates. Nothing forwards to it, so the advertised URL is never called.
      config: {
        cluster: {
          nodeId: 'dash-node-1', advertiseUrl: 'http://127.0.0.1:9', secret: 'dashboard-cluster-secret-0123456789',
          leaseTtlMs: 8000, renewIntervalMs: 2000, driftMarginMs: 1000, handoverWaitMs: 5000, movesPerMinute: 30, deadNodeRetentionMs: 300_000,
        },
      },
    });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1024, height: 800 } })).newPage();
    page.setDefaultTimeout(20_000);
  });

  after(async () => {
    await browser?.close();
    await host?.stop();
    await deleteKeys(redisUrl, keyPrefix);
  });

  it('shows a Node column with the owner of each instance', async () => {
    const { data: dora } = await host.client.call('adminCreateInstance', { body: { channel: 'sandbox', name: 'dora', options: { number: '5511900000301' } } });
    const listed = await host.client.call('adminListInstances', { query: {} });
    assert.equal(listed.data.find((i) => i.id === dora.id)?.owner, 'dash-node-1', 'the API names the owner');
    await signIn(page, host.url, host.adminToken);
    await page.getByRole('columnheader', { name: 'Node' }).waitFor();
    const row = page.locator(`tr[data-instance="${dora.id}"]`);
    await row.getByRole('cell', { name: 'dash-node-1' }).waitFor();
    await screenshot(page, 'dashboard-cluster-owner');
  });
});
