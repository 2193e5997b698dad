import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCliHost, type CliHost } from './host.js';
import { eventually, untilProcess as until } from '@parley/testkit';
import { runParley, spawnParley } from './parley-process.js';
import { decodeTerminalQrs } from './terminal-qr-decode.js';

const ALICE = '5511930000001';
const BOB = '5511930000002';

/**
 * Every command of `parley` against a real server, in the order an operator uses them: create, list,
 * connect (the terminal QR decodes to the server's code; the sandbox scans it; connect exits 0), send,
 * webhook statistics, dead letters and redelivery, delete.
 */
describe('parley: each command round-trips against a real server', () => {
  let t: CliHost;
  const parley = (...args: string[]) => runParley([...t.flags, ...args], { cwd: t.cwd });
  const ids: Record<string, string> = {};
  const keys: Record<string, string> = {};

  before(async () => {
    t = await startCliHost();
    t.host.receiver.respond({ status: 500 });
  });
  after(() => t.stop());

  it('instances create prints the key and webhook secret; --json answers the instance', async () => {
    const human = await parley('instances', 'create', '--channel', 'sandbox', '--name', 'alice', '--option', `number=${ALICE}`, '--webhook-url', t.host.receiver.url);
    assert.equal(human.code, 0, human.stderr);
    const key = /^ {2}key +(\S+)$/m.exec(human.stdout)?.[1];
    assert.ok(key, human.stdout);
    const { data } = await t.host.client.call('adminGetInstance', { params: { key } });
    assert.equal(data.name, 'alice');
    assert.deepEqual(data.options, { number: ALICE });
    assert.equal(data.webhook?.webhookMessage, t.host.receiver.url);
    assert.ok(human.stdout.includes(`Created instance ${data.id} (alice) on channel sandbox.`), human.stdout);
    assert.ok(human.stdout.includes(`webhook secret  ${data.webhookSecret}`), human.stdout);
    ids.alice = data.id;
    keys.alice = key;

    const json = await parley('--json', 'instances', 'create', '--name', 'bob', '--options', JSON.stringify({ number: BOB }));
    assert.equal(json.code, 0, json.stderr);
    const bob = JSON.parse(json.stdout) as { id: string; key: string; channel: string; name: string };
    assert.equal(bob.channel, 'sandbox', 'the server default channel');
    assert.equal(bob.name, 'bob');
    ids.bob = bob.id;
    keys.bob = bob.key;
  });

  it('instances list shows them (keys only with --show-keys); --json is the full list', async () => {
    const table = await parley('instances', 'list');
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^ID +NAME +CHANNEL +CONNECTED +HEALTH +ACCOUNT +CREATED$/);
    assert.match(lines[1]!, new RegExp(`^${ids.alice} +alice +sandbox +no +healthy +- +\\d{4}-`));
    assert.match(lines[2]!, new RegExp(`^${ids.bob} +bob +sandbox +no `));
    assert.ok(!table.stdout.includes(keys.alice!), 'no keys by default');
    const withKeys = await parley('instances', 'list', '--show-keys');
    assert.ok(withKeys.stdout.split('\n')[1]!.endsWith(keys.alice!), withKeys.stdout);

    const json = await parley('instances', 'list', '--json');
    const listed = JSON.parse(json.stdout) as { id: string; key: string }[];
    assert.deepEqual(listed.map((i) => [i.id, i.key]), [[ids.alice, keys.alice], [ids.bob, keys.bob]]);

    const shown = await parley('instances', 'show', 'bob', '--json');
    assert.equal((JSON.parse(shown.stdout) as { id: string }).id, ids.bob);
  });

  it('connect prints the QR in the terminal, decoding to the code the API answers, and exits 0 once the sandbox scans it', async () => {
    const proc = spawnParley([...t.flags, 'connect', 'alice', '--qr', 'text'], { cwd: t.cwd });
    try {
      await until(() => (proc.stdout().includes('QR code 1: waiting for the scan') ? true : undefined), 'the QR code', proc);
      const [decoded] = decodeTerminalQrs(proc.stdout(), 'text');
      const api = await t.host.client.instance(keys.alice).call('connectInstance');
      assert.equal(decoded, api.qrcode, 'the terminal QR is the code the API answers');
      assert.ok(api.qrcode.endsWith(`sandbox:${ALICE}`));
      await t.host.client.call('sandbox_post_key_scan', { params: { key: keys.alice }, body: {} });
    } finally {
      setTimeout(() => proc.child.kill('SIGKILL'), 15_000).unref();
    }
    assert.deepEqual(await proc.exited, { code: 0, signal: null }, proc.stderr());
    assert.ok(proc.stdout().endsWith(`Linked: ${ids.alice} (alice) is connected as ${ALICE} (alice).\n`), proc.stdout());

    // Linked already: answers at once. By key, as a holder of only the instance key would (no admin token).
    const again = await runParley(['--url', t.host.url, '--json', 'connect', '--', keys.alice!], { cwd: t.cwd });
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), { event: 'linked', phoneConnected: true, user: JSON.parse(again.stdout).user, alreadyLinked: true });
  });

  it('connect --json streams NDJSON events: qrcode, then linked', async () => {
    const proc = spawnParley([...t.flags, '--json', 'connect', ids.bob!], { cwd: t.cwd });
    const first = await until(() => proc.stdout().split('\n').find((line) => line.includes('"qrcode"')), 'the qrcode event', proc);
    const event = JSON.parse(first) as { event: string; qrcode: string; image: string };
    assert.equal(event.event, 'qrcode');
    assert.match(event.image, /^data:image\/png;base64,/);
    await t.host.client.call('sandbox_post_key_scan', { params: { key: keys.bob }, body: {} });
    assert.deepEqual(await proc.exited, { code: 0, signal: null }, proc.stderr());
    const events = proc.stdout().trimEnd().split('\n').map((line) => JSON.parse(line) as { event: string; user?: { id: string } });
    assert.deepEqual(events.map((e) => e.event), ['qrcode', 'linked']);
    assert.match(events[1]!.user!.id, new RegExp(`^${BOB}`));
  });

  it('send delivers a text that the receiving instance has', async () => {
    const sent = await parley('send', 'alice', BOB, 'hello from the terminal');
    assert.equal(sent.code, 0, sent.stderr);
    const id = /^Sent message (\S+) to (\S+) \(status (\w+)\)\.$/.exec(sent.stdout.trim());
    assert.ok(id, sent.stdout);
    assert.equal(id[2], `${BOB}@s.whatsapp.net`);
    assert.ok(await eventually(async () => {
      const { data } = await t.host.client.instance(keys.bob).call('listChatMessages', { params: { jid: ALICE } });
      return data.some((m) => !m.key.fromMe && JSON.stringify(m.message).includes('hello from the terminal'));
    }), 'bob has the message');

    const json = await parley('--json', 'send', ids.alice!, BOB, 'second');
    assert.equal((JSON.parse(json.stdout) as { key: { fromMe: boolean } }).key.fromMe, true);
  });

  it('webhooks stats, dead-letters and redeliver show and recover the failed deliveries', async () => {
    // Settled: every event so far (the sends' late receipts included) failed into a dead letter, and no more come.
    const statistics = async () => (await t.host.client.instance(keys.alice).call('webhookStatistics')).data;
    let last = '';
    assert.ok(await eventually(async () => {
      const now = await statistics();
      const settled = now.totalPending === 0 && now.totalFailed >= 2 && JSON.stringify(now) === last;
      last = JSON.stringify(now);
      return settled;
    }, 40, 250), 'the failed deliveries to settle');
    const api = await statistics();
    const stats = await parley('webhooks', 'stats', 'alice', '--json');
    assert.equal(stats.code, 0, stats.stderr);
    assert.deepEqual(JSON.parse(stats.stdout), api);
    assert.ok(api.totalFailed >= 2 && api.totalSent === 0);
    const human = await parley('webhooks', 'stats', 'alice');
    assert.ok(human.stdout.includes(`failed attempts  ${api.totalFailed}`), human.stdout);

    const dead = await parley('webhooks', 'dead-letters', 'alice', '--json');
    const page = JSON.parse(dead.stdout) as { total: number; data: { id: string; lastStatus: number }[] };
    assert.equal(page.total, api.totalFailed);
    assert.ok(page.data.every((d) => d.lastStatus === 500));
    const table = await parley('webhooks', 'dead-letters', 'alice', '--limit', '1');
    assert.ok(table.stdout.includes(`(1–1 of ${page.total}; redeliver with`), table.stdout);
    assert.ok(table.stdout.includes(page.data[0]!.id), table.stdout);

    t.host.receiver.respond({ status: 200 });
    const one = await parley('webhooks', 'redeliver', 'alice', page.data[0]!.id, 'msg_unknown');
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stdout, 'Queued 1 dead letter again (1 of the ids given were not dead letters of this instance).\n');
    // The rest go to the URL the settings name now (--current), not the one they failed at.
    await t.host.client.instance(keys.alice).call('updateWebhookSettings', { body: { webhookMessage: `${t.host.receiver.url}/fixed` } });
    const all = await parley('webhooks', 'redeliver', 'alice', '--all', '--current', '--json');
    assert.deepEqual(JSON.parse(all.stdout), { redelivered: page.total - 1, kept: [] });
    assert.ok(await eventually(async () => (await statistics()).totalSent === page.total, 200), 'the redeliveries');
    assert.equal(t.host.receiver.requests.filter((r) => r.url === '/fixed').length, page.total - 1, 'each to the current URL');
    assert.equal((await parley('webhooks', 'dead-letters', 'alice')).stdout, 'No dead letters.\n');
  });

  it('instances delete removes it; it is then not found', async () => {
    const deleted = await parley('instances', 'delete', 'bob');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout, `Deleted instance ${ids.bob} (bob).\n`);
    const listed = JSON.parse((await parley('--json', 'instances', 'list')).stdout) as { id: string }[];
    assert.deepEqual(listed.map((i) => i.id), [ids.alice]);
    const gone = await parley('instances', 'show', 'bob');
    assert.equal(gone.code, 4);
    assert.equal(gone.stderr, 'parley: no instance has the id, key or name "bob"\n');
  });
});
