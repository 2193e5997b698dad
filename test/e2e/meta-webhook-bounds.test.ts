import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startMockGraph, type MockGraph } from '@parley/meta-graph/testing';
import { postWebhook } from '../support/meta-channels.js';
import { Scrape } from '../support/metrics-scrape.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const SKIPPED = 'webhook entries of unlinked accounts skipped';
/** A signature header Meta never made: nobody links these accounts, so no app secret can check it. */
const FORGED = { header: `sha256=${'0'.repeat(64)}` };

/** An Instagram notification whose entries name `ids`, in order. */
function notification(ids: string[]): Buffer {
  return Buffer.from(JSON.stringify({ object: 'instagram', entry: ids.map((id) => ({ id, time: 1718000000, messaging: [] })) }));
}

/**
 * What an unsigned notification can cost the server: `POST /instagram/webhook` is open to anyone, and
 * a notification's signature can only be checked once an entry names a linked account (its app
 * secret). So the entries are bounded (Meta batches at most 1,000 updates), each account is looked up
 * once however often it is named, and notifications naming unlinked accounts are logged at most once a
 * second, naming ten of them.
 */
describe('inbound Meta webhooks: what an unsigned notification costs', () => {
  let graph: MockGraph;
  let t: TestServer;

  const logLines = (msg: string) => t.logs.join('').split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).map((l) => JSON.parse(l) as Record<string, any>);
  const stateReads = async () => {
    const res = await t.request('GET', '/metrics', undefined, { authorization: `Bearer ${t.adminToken}` });
    assert.equal(res.status, 200);
    return (await Scrape.parse(res.raw.toString('utf8'))).count('parley_storage_operation_duration_seconds', { repository: 'state', operation: 'get' });
  };

  before(async () => {
    graph = await startMockGraph();
    t = await startTestServer({
      plugins: [
        { package: '@parley/storage-memory' },
        { package: '@parley/webhook-native' },
        { package: '@parley/channel-instagram', options: { graphBaseUrl: graph.url, profileLookup: false } },
      ],
      captureLogs: true,
    });
  });
  after(async () => {
    await t.stop();
    await graph.close();
  });

  it('refuses a notification of more than 1,000 entries with 400, looking nothing up', async () => {
    const reads = await stateReads();
    const res = await postWebhook(t, 'instagram', notification(Array.from({ length: 1001 }, (_, i) => `1784140000000${i}`)), FORGED);
    assert.deepEqual({ status: res.status, body: res.body }, {
      status: 400, body: { status: 400, error: { code: 'validation_failed', message: 'a notification has at most 1000 entries (Meta batches at most 1000 updates)' } },
    });
    assert.equal(await stateReads(), reads, 'no account was looked up');
    assert.deepEqual(logLines(SKIPPED), []);
  });

  it('looks each named account up once, however often a notification repeats it', async () => {
    const reads = await stateReads();
    const ids = Array.from({ length: 1000 }, (_, i) => `178414000000${i % 3}`);
    const res = await postWebhook(t, 'instagram', notification(ids), FORGED);
    assert.deepEqual({ status: res.status, body: res.body }, { status: 200, body: { received: 0 } });
    assert.equal(await stateReads(), reads + 3, 'three distinct accounts, three index reads');
  });

  it('logs a flood of notifications naming unlinked accounts a line a second, naming ten accounts and counting the rest', async () => {
    const linesBefore = logLines(SKIPPED).length;
    const ids = Array.from({ length: 40 }, (_, i) => `17841499999${String(i).padStart(4, '0')}`);
    const began = performance.now();
    const answers = await Promise.all(Array.from({ length: 25 }, () => postWebhook(t, 'instagram', notification(ids), FORGED)));
    const seconds = (performance.now() - began) / 1000;
    assert.deepEqual([...new Set(answers.map((r) => `${r.status} ${JSON.stringify(r.body)}`))], ['200 {"received":0}']);
    // The notifications folded after the last line are written when its second ends.
    let lines: Record<string, any>[] = [];
    for (let i = 0; i < 100 && lines.reduce((n, l) => n + l.notifications, 0) < 25; i++) {
      await new Promise((r) => setTimeout(r, 50));
      lines = logLines(SKIPPED).slice(linesBefore);
    }
    assert.equal(lines.reduce((n, l) => n + l.notifications, 0), 25, 'every notification is counted by a line');
    assert.ok(lines.length <= Math.ceil(seconds) + 2 && lines.length < 25, `${lines.length} lines for 25 notifications in ${seconds.toFixed(1)} s`);
    for (const line of lines) {
      assert.deepEqual(line.accounts, ids.slice(0, 10));
      assert.equal(line.unlinked, 40);
      assert.equal(line.channel, 'instagram');
    }
  });
});
