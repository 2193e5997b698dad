import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { serviceUrlOrSkip } from '@parley/testkit';
import { CLUSTER_ADMIN_TOKEN, freePort, NodeProcess, startTestHost, type TestHost } from '@parley/testkit/host';
import { deleteKeys } from '@parley/storage-redis/testing';
import { axeViolations, browserUnavailable, launchChromium, screenshot, signIn } from '../support/browser.js';
import { createSandboxInstances, until, type Instance } from '../support/cluster-load.js';

const skip = browserUnavailable();

/** On a cluster node the instance list names the node running each instance (issue 15: "owner node"). */
describe('dashboard on a cluster node: the owner column', { skip, timeout: 120_000 }, () => {
  const redisUrl = serviceUrlOrSkip('REDIS_URL', 'the dashboard on a cluster node');
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
    assert.equal((await host.client.call('adminGetInstance', { params: { key: dora.id } })).data.owner, 'dash-node-1', 'the instance\'s own admin record names it too');
    await signIn(page, host.url, host.adminToken);
    await page.getByRole('columnheader', { name: 'Node' }).waitFor();
    const row = page.locator(`tr[data-instance="${dora.id}"]`);
    await row.getByRole('cell', { name: 'dash-node-1' }).waitFor();
    await screenshot(page, 'dashboard-cluster-owner');
  });
});

/** Steps wait at most this long: drains and moves include a handover (a loaded 2-core machine included). */
const STEP_MS = 45_000;

/** The nodes table as the page shows it, by node id. */
function nodesShown(page: Page): Promise<Record<string, { state: string; draining: string; instances: number }>> {
  return page.locator('tr[data-node]').evaluateAll((rows) => Object.fromEntries(rows.map((row) => [row.getAttribute('data-node'), {
    state: row.querySelector('.node-alive, .node-dead')?.textContent ?? '',
    draining: row.querySelector('[data-cell="draining"]')?.textContent ?? '',
    instances: Number(row.querySelector('[data-cell="instances"]')?.textContent),
  }])));
}

/**
 * The cluster view on two real nodes (the CLI in two processes) on one Redis: the Cluster page lists
 * both with what each owns, drains one after a confirmation and resumes it, an instance is moved from
 * its page, and a move the API refuses shows the API's message.
 */
describe('dashboard on a two-node cluster: the Cluster page and moving an instance', { skip, timeout: 300_000 }, () => {
  const redisUrl = serviceUrlOrSkip('REDIS_URL', 'the dashboard on a two-node cluster');
  if (!redisUrl) return;
  const keyPrefix = `parley-test:dashboard-cluster2:${process.pid}-${randomBytes(4).toString('hex')}:`;
  const dir = mkdtempSync(join(tmpdir(), 'parley-dashboard-cluster-'));
  const nodes: NodeProcess[] = [];
  let instances: Instance[] = [];
  let browser: Browser;
  let page: Page;
  const n1 = () => nodes[0]!;
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await n1().request(method, path, body, {}, true);
    assert.equal(res.status, 200, `${method} ${path}: ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const owners = async (): Promise<Record<string, string | null>> =>
    Object.fromEntries((await admin('GET', '/admin/instances') as { id: string; owner: string | null }[]).map((i) => [i.id, i.owner]));
  const nav = () => page.getByRole('navigation', { name: 'Main' });

  before(async () => {
    const ports = [await freePort(), await freePort()];
    // Launched first and kept, so that `after` stops both even when one is not ready in time.
    for (const [i, id] of ['n1', 'n2'].entries()) nodes.push(NodeProcess.launch({ id, port: ports[i]!, redisUrl, keyPrefix, dir }));
    await Promise.all(nodes.map((n) => n.ready(60_000)));
    instances = await createSandboxInstances(n1(), nodes, 3, '551197400000');
    for (const instance of instances) {
      await until(async () => (await n1().request('GET', `/${instance.key}/instance`)).body?.instance?.connection?.status === 'open', `${instance.number} is connected`, STEP_MS);
    }
    browser = await launchChromium();
    // axe-core is injected as an inline script, which the dashboard's CSP refuses otherwise.
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true })).newPage();
    page.setDefaultTimeout(STEP_MS);
    await signIn(page, n1().url, CLUSTER_ADMIN_TOKEN);
  });

  after(async () => {
    await browser?.close();
    await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
    await deleteKeys(redisUrl, keyPrefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it('links the Cluster page, which lists both nodes with the instances each owns and marks the answering node', async () => {
    await nav().getByRole('link', { name: 'Cluster' }).click();
    await page.getByRole('heading', { name: 'Cluster' }).waitFor();
    // Placement may still settle: the page, reloading by itself, ends up with what the API says.
    await until(async () => {
      const api = await admin('GET', '/admin/cluster') as { nodes: { id: string; instances: number }[] };
      const shown = await nodesShown(page);
      return api.nodes.length === 2 && api.nodes.reduce((sum, n) => sum + n.instances, 0) === 3
        && api.nodes.every((n) => shown[n.id]?.instances === n.instances && shown[n.id]?.state === 'alive' && shown[n.id]?.draining === 'no');
    }, 'the page lists both nodes alive with the API\'s counts', STEP_MS);
    assert.match(await page.locator('tr[data-node="n1"] th').innerText(), /this node/);
    assert.doesNotMatch(await page.locator('tr[data-node="n2"] th').innerText(), /this node/);
    assert.deepEqual(await page.getByRole('columnheader').allInnerTexts(),
      ['Node', 'Address', 'State', 'Draining', 'Instances', 'Load', 'Started', 'Last heartbeat', 'Actions']);
    assert.deepEqual(await axeViolations(page), [], 'cluster page');
    await screenshot(page, 'dashboard-cluster-nodes');
  });

  it('follows the admin event stream instead of polling: idle it reads the nodes seldom, a move shows from its events', async () => {
    await page.getByText('Live: event stream').waitFor();
    const reads: number[] = [];
    const onRequest = (request: { url(): string }) => { if (new URL(request.url()).pathname === '/admin/cluster') reads.push(Date.now()); };
    page.on('request', onRequest);
    try {
      await new Promise((resolve) => setTimeout(resolve, 7_000));
      assert.ok(reads.length <= 1, `${reads.length} reads of GET /admin/cluster in 7 s without a change (polling read it every 3 s)`);
      const shown = await nodesShown(page);
      const moved = instances[0]!;
      const to = (await owners())[moved.id] === 'n1' ? 'n2' : 'n1';
      await admin('POST', `/admin/instances/${moved.key}/move`, { node: to });
      // The move's connection events (stopped on one node, open on the other) reload the table.
      await until(async () => (await nodesShown(page))[to]?.instances === shown[to]!.instances + 1, `the page shows ${to} with one instance more`, STEP_MS);
    } finally {
      page.off('request', onRequest);
    }
  });

  it('drains a node after a confirmation (its instances go to the other node, in both tables) and resumes it', async () => {
    const row = page.locator('tr[data-node="n2"]');
    await row.getByRole('button', { name: 'Drain n2…' }).click();
    await row.getByRole('group', { name: 'Confirm draining n2' }).getByRole('button', { name: 'Drain n2', exact: true }).click();
    await page.getByText('n2 is draining: it handed its instances to the other nodes').waitFor();
    await until(async () => {
      const shown = await nodesShown(page);
      return shown.n2?.draining === 'yes' && shown.n2.instances === 0 && shown.n1?.instances === 3;
    }, 'the page shows n2 draining with no instance, n1 with all three', STEP_MS);
    assert.ok(Object.values(await owners()).every((o) => o === 'n1'), 'the API says n1 owns every instance');
    await row.getByRole('button', { name: 'Resume n2' }).waitFor();

    await nav().getByRole('link', { name: 'Instances' }).click();
    await until(async () => {
      const cells = await page.locator('tr[data-instance] td:last-child').allInnerTexts();
      return cells.length === 3 && cells.every((c) => c === 'n1');
    }, 'the instance list\'s Node column shows n1 for each instance', STEP_MS);

    await nav().getByRole('link', { name: 'Cluster' }).click();
    await row.getByRole('button', { name: 'Resume n2' }).click();
    await page.getByText('n2 is back in service: it takes instances again.').waitFor();
    // Back in service, n2 takes its share again (rebalancing: 3 instances on 2 nodes, at most 2 each).
    await until(async () => {
      const shown = await nodesShown(page);
      return shown.n2?.draining === 'no' && shown.n2.instances === 1 && shown.n1?.instances === 2;
    }, 'the page shows n2 in service with one instance again', 60_000);
    await row.getByRole('button', { name: 'Drain n2…' }).waitFor();
  });

  it('moves an instance from its page to the other node, and shows the new owner', async () => {
    const before = await owners();
    const index = instances.findIndex((i) => before[i.id] === 'n1');
    const moved = instances[index]!;
    await nav().getByRole('link', { name: 'Instances' }).click();
    await page.getByRole('link', { name: `c${index}`, exact: true }).click();
    await page.locator('#instance-owner', { hasText: 'n1' }).waitFor();
    const select = page.getByLabel('Move to node');
    const offered = async (want: string) => until(async () => (await select.locator('option').allInnerTexts()).join() === want, `the select offers ${want}`, STEP_MS);
    // The live nodes taking instances, but the owner.
    await offered('n2');
    await page.getByRole('button', { name: 'Move', exact: true }).click();
    await page.getByText('Moved: n2 runs the instance now.').waitFor();
    assert.equal(await page.locator('#instance-owner').innerText(), 'n2');
    assert.equal((await owners())[moved.id], 'n2');
    await offered('n1');
    assert.deepEqual(await axeViolations(page), [], 'instance page with the move control');
    await screenshot(page, 'dashboard-cluster-moved');
  });

  it('shows the API\'s message when the move is refused (the chosen node started draining meanwhile)', async () => {
    // The page read the nodes when the last move was done: n1 is still offered after it starts draining.
    await admin('POST', '/admin/cluster/nodes/n1/drain', { draining: true });
    try {
      assert.deepEqual(await page.getByLabel('Move to node').locator('option').allInnerTexts(), ['n1']);
      await page.getByRole('button', { name: 'Move', exact: true }).click();
      const alert = page.locator('section[aria-labelledby="move-title"]').getByRole('alert');
      await alert.waitFor();
      assert.equal(await alert.innerText(), 'body.node "n1" is not a live node taking instances (400 validation_failed)');
      // The nodes are read again after the refusal: none other takes instances now.
      await page.getByText('No other node takes instances now.').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Move', exact: true }).isDisabled(), true);
      assert.equal(await page.locator('#instance-owner').innerText(), 'n2', 'the owner is unchanged');
      await screenshot(page, 'dashboard-cluster-move-refused');
    } finally {
      await admin('POST', '/admin/cluster/nodes/n1/drain', { draining: false });
    }
  });
});

/** A single server (SQLite) is no cluster node: no Cluster link, no owner, no move control. */
describe('dashboard on a single server: no cluster view', { skip, timeout: 120_000 }, () => {
  let host: TestHost;
  let browser: Browser;
  let page: Page;

  before(async () => {
    host = await startTestHost({
      plugins: [{ package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } }, { package: '@parley/webhook-native' }],
    });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1024, height: 800 } })).newPage();
    page.setDefaultTimeout(20_000);
  });

  after(async () => {
    await browser?.close();
    await host?.stop();
    assert.deepEqual(host?.server.undeclaredAnswers() ?? [], [], 'every answer the dashboard got is declared in the OpenAPI document');
  });

  it('shows neither a Cluster link nor an owner or a move control', async () => {
    const { data: eve } = await host.client.call('adminCreateInstance', { body: { channel: 'sandbox', name: 'eve', options: { number: '5511900000311' } } });
    assert.equal('owner' in (await host.client.call('adminGetInstance', { params: { key: eve.id } })).data, false);
    const clusterAnswer = page.waitForResponse((r) => new URL(r.url()).pathname === '/admin/cluster');
    await signIn(page, host.url, host.adminToken);
    assert.equal((await (await clusterAnswer).json()).data.enabled, false);
    await page.getByRole('link', { name: 'eve', exact: true }).click();
    await page.getByText('Public id').waitFor();
    assert.deepEqual(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts(), ['Instances', 'Guides', 'API docs']);
    assert.equal(await page.getByText('Node', { exact: true }).count(), 0);
    assert.equal(await page.getByLabel('Move to node').count(), 0);
  });
});
