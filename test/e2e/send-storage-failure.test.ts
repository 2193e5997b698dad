import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SERVER_PROCESS_ADMIN_TOKEN } from '../support/server-process.js';
import { NO_PACING, TEST_QUEUE } from '../support/queue.js';
import { Scrape } from '../support/metrics-scrape.js';
import { ServerChild } from '../support/server-child.js';

const A = '5511962000001';
const B = '5511962000002';

/**
 * Sets the server process's file-size limit (RLIMIT_FSIZE, soft only): at 0 every write that would
 * grow a file fails (EFBIG; Node ignores SIGXFSZ), so SQLite cannot commit, as on a full disk.
 */
function limitFileSize(pid: number, soft: '0' | 'unlimited'): void {
  execFileSync('prlimit', ['--pid', String(pid), `--fsize=${soft}:`]);
}

/**
 * Issue 24 item 5: a send's 503 means "not sent". A SQLite server whose commits fail (its file-size
 * limit lowered to 0, a disk-full-style failure) answers a send 503 before the channel is asked to
 * send it: the channel's send counter does not move, nothing is queued or stored, the recipient gets
 * nothing; once writes work again the same send goes out once. Before the fix the send left inline in
 * the same batch as its enqueue and only the final commit failed: 503, and the message was on its way.
 */
describe('a send whose storage commit fails answers 503 and sends nothing (real process, SQLite)', () => {
  let dataDir: string;
  let server: ServerChild;
  let a: { key: string };
  let b: { key: string };

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-send-storage-failure-'));
    server = await ServerChild.start(dataDir, { queue: TEST_QUEUE });
    a = await server.connectedSandbox({ name: 'a', options: { number: A } });
    b = await server.connectedSandbox({ name: 'b', options: { number: B } });
    // Nothing to pace or type: a send leaves inline, the path that used to send before its commit.
    assert.equal((await server.request('PUT', `/${a.key}/queue/policy`, NO_PACING)).status, 200);
  });
  after(async () => {
    if (server) limitFileSize(server.child.pid!, 'unlimited');
    await server?.kill('SIGTERM');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const sent = async () => {
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${SERVER_PROCESS_ADMIN_TOKEN}` } });
    assert.equal(res.status, 200);
    return (await Scrape.parse(await res.text())).value('parley_messages_sent_total', { type: 'text' });
  };
  const texts = async (key: string, number: string) => {
    const res = await server.request('GET', `/${key}/chat/${number}/messages?limit=100`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body.data as { message: { extendedTextMessage?: { text: string } } }[]).map((m) => m.message.extendedTextMessage?.text);
  };

  it('answers 503 with nothing sent, queued or stored; the retry goes out once', async () => {
    const warm = await server.request('POST', `/${a.key}/message/text`, { to: B, text: 'before the disk fills' });
    assert.equal(warm.status, 200, JSON.stringify(warm.body));
    assert.equal(warm.body.data.queue, undefined, 'sent inline');
    const before = await sent();

    limitFileSize(server.child.pid!, '0');
    let failed;
    try {
      failed = await server.request('POST', `/${a.key}/message/text`, { to: B, text: 'while the disk is full' });
    } finally {
      limitFileSize(server.child.pid!, 'unlimited');
    }
    assert.equal(failed.status, 503, JSON.stringify(failed.body));
    assert.equal(failed.body.error.code, 'service_unavailable');
    assert.equal(await sent(), before, 'the channel was never asked to send it');

    // Whatever the failed commit held was rolled back: no queue entry, no record, nothing received.
    const queue = await server.request('GET', `/${a.key}/queue`);
    assert.equal(queue.status, 200, JSON.stringify(queue.body));
    assert.deepEqual(queue.body.data, []);
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(!(await texts(a.key, B)).includes('while the disk is full'));
    assert.ok(!(await texts(b.key, A)).includes('while the disk is full'));

    // The client's retry (503: nothing was done) is the one send.
    const retried = await server.request('POST', `/${a.key}/message/text`, { to: B, text: 'while the disk is full' });
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(await sent(), before + 1);
    const deadline = Date.now() + 10_000;
    while (!(await texts(b.key, A)).includes('while the disk is full')) {
      assert.ok(Date.now() < deadline, 'the retried send reaches the recipient');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await texts(b.key, A)).filter((t) => t === 'while the disk is full').length, 1);
    assert.equal((await texts(a.key, B)).filter((t) => t === 'while the disk is full').length, 1);
  });
});
