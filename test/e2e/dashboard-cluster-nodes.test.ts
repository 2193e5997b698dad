import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { serviceUrlOrSkip } from '@parley/testkit';
import { CLUSTER_ADMIN_TOKEN, freePort, NodeProcess } from '@parley/testkit/host';
import { deleteKeys } from '@parley/storage-redis/testing';
import { browserUnavailable, launchChromium, screenshot, signIn } from '../support/browser.js';
import { until } from '../support/cluster-load.js';

const skip = browserUnavailable();
/** Short leases: a killed node is listed dead 5 s after its last heartbeat at most (a loaded machine stalls a starting node for seconds). */
const TIMING = { leaseTtlMs: 5000, renewIntervalMs: 1000, driftMarginMs: 1000 };
/** The dashboard's reload of a streaming view (live.ts, STREAMING_POLL_MS): the page's clock never gets this far in the test. */
const STREAMING_RELOAD_MS = 15_000;
/** Page-clock steps while waiting for a node event's reload (its debounce, then the table's throttle). */
const STEP_MS = 250;
const STEPS = 12;

/**
 * The Cluster page on real nodes (the CLI) shows a node that joins and one that dies from the admin
 * stream's node events, not from its slow reload: the page's clock is paused (Playwright's clock)
 * right after one of its reloads, and moved on by less than the reload period in all.
 */
describe('dashboard: the Cluster page follows node events', { skip, timeout: 240_000 }, () => {
  const redisUrl = serviceUrlOrSkip('REDIS_URL', 'the Cluster page following node events');
  if (!redisUrl) return;
  const keyPrefix = `parley-test:dashboard-cluster-nodes:${process.pid}-${randomBytes(4).toString('hex')}:`;
  const dir = mkdtempSync(join(tmpdir(), 'parley-dashboard-cluster-nodes-'));
  const nodes: NodeProcess[] = [];
  let browser: Browser;
  let page: Page;
  const reads: number[] = [];
  let advanced = 0;
  const launch = async (id: string) => {
    const node = NodeProcess.launch({ id, port: await freePort(), redisUrl, keyPrefix, dir, cluster: TIMING });
    nodes.push(node);
    await node.ready(90_000);
    return node;
  };
  const listed = async () => new Map(((await nodes[0]!.request('GET', '/admin/cluster', undefined, {}, true)).body.data.nodes as { id: string; alive: boolean }[])
    .map((n) => [n.id, n.alive]));
  const state = (id: string) => page.locator(`tr[data-node="${id}"] .node-alive, tr[data-node="${id}"] .node-dead`).allInnerTexts();
  /** Moves the page's clock on in small steps until the row of `id` shows `want` (bounded: far less than the reload period). */
  const untilShown = async (id: string, want: string) => {
    for (let step = 0; step < STEPS; step++) {
      if ((await state(id)).join() === want) return;
      await page.clock.runFor(STEP_MS);
      advanced += STEP_MS;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const mode = await page.locator('#live-mode').innerText();
    assert.fail(`${id} is not shown ${want} after ${STEPS * STEP_MS} ms of the page's clock (shown: ${(await state(id)).join() || 'no row'}; ${mode}; ${reads.length} reads)`);
  };

  /**
   * Pauses the page's clock 50 ms ahead of its time. On a loaded machine that moment can pass before the call
   * reaches the page (Playwright refuses to pause in the past): a fresh moment is taken, five tries at most.
   */
  const pauseSoon = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await page.clock.pauseAt(await page.evaluate(() => Date.now() + 50));
      } catch (error) {
        if (attempt === 5 || !/to the past/.test(String(error))) throw error;
      }
    }
  };

  before(async () => {
    await Promise.all(['n1', 'n2'].map(launch));
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(45_000);
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/admin/cluster') reads.push(advanced);
    });
    // Installed before the page loads: its timers run on the page's clock (flowing until paused).
    await page.clock.install();
    await signIn(page, nodes[0]!.url, CLUSTER_ADMIN_TOKEN);
  });

  after(async () => {
    await browser?.close();
    await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
    await deleteKeys(redisUrl, keyPrefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows a node that joins, then dies (SIGKILL), without its slow reload', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Cluster' }).click();
    await page.getByText('Live: event stream').waitFor();
    await page.locator('tr[data-node="n2"] .node-alive').waitFor();
    // Paused, then moved on to the page's next slow reload: from that read on, the next is STREAMING_RELOAD_MS away.
    await pauseSoon();
    const before = reads.length;
    for (let ms = 0; ms <= STREAMING_RELOAD_MS && reads.length === before; ms += 500) {
      await page.clock.runFor(500);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(reads.length > before, 'the page read the nodes at its slow reload');
    advanced = 0;
    const calibrated = reads.length;

    await launch('n3');
    await until(async () => (await listed()).get('n3') === true, 'the API lists n3 alive', 30_000);
    await untilShown('n3', 'alive');
    await nodes[2]!.stop('SIGKILL');
    await until(async () => (await listed()).get('n3') === false, 'the API lists n3 dead', 30_000);
    await untilShown('n3', 'dead');
    assert.ok(advanced < STREAMING_RELOAD_MS, `the page's clock moved ${advanced} ms: no slow reload came due`);
    assert.ok(reads.length - calibrated >= 2, 'the node events made the page read the nodes');
    await screenshot(page, 'dashboard-cluster-node-dead');
  });
});
