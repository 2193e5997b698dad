import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultInstanceFlags, defaultWebhookSettings, type InstanceRecord } from '@parley/core';
import type { PluginEntry } from '@parley/server';
import { SqliteStorage } from '@parley/storage-sqlite';
import { serviceUrlOrSkip } from '@parley/testkit';
import { deleteKeys } from '@parley/storage-redis/testing';
import { startTestServer, type TestServer } from '../support/test-server.js';

const redisUrl = serviceUrlOrSkip('REDIS_URL', 'sandbox number uniqueness on Redis storage');
const prefix = `parley-e2e-unique-${process.pid}-${Date.now()}:`;

const backEnds: [string, PluginEntry | undefined][] = [
  ['memory', { package: '@parley/storage-memory' }],
  ['sqlite', { package: '@parley/storage-sqlite' }],
  ['redis', redisUrl ? { package: '@parley/storage-redis', options: { url: redisUrl, keyPrefix: prefix } } : undefined],
];

for (const [label, storage] of backEnds) {
  if (!storage) continue;
  describe(`instance name and sandbox number uniqueness through the admin API (${label} storage)`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer({ plugins: [storage, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }] });
    });
    after(async () => {
      await t.stop();
      if (label !== 'redis') return;
      await deleteKeys(redisUrl!, prefix);
    });

    const create = (body: unknown) => t.admin('POST', '/admin/instances', body);
    const list = async () => (await t.admin('GET', '/admin/instances')).body.data as {
      id: string; key: string; name: string; options: { number: string };
    }[];

    it('of 20 parallel creations with one number exactly one succeeds; the others answer 409 number_taken and leave nothing', async () => {
      const number = '5511930000001';
      const before = await list();
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => create({ name: `racer ${i}`, options: { number } })));
      const created = answers.filter((a) => a.status === 200);
      assert.equal(created.length, 1, JSON.stringify(answers.map((a) => a.status)));
      for (const answer of answers.filter((a) => a.status !== 200)) {
        assert.equal(answer.status, 409);
        assert.deepEqual(answer.body, { status: 409, error: { code: 'number_taken', message: `sandbox number ${number} is taken` } });
      }
      const after = await list();
      assert.equal(after.length, before.length + 1);
      assert.deepEqual(after.filter((r) => r.options.number === number).map((r) => r.id), [created[0]!.body.data.id]);
      // The winner is a working instance holding the number.
      const { instance } = await t.client(created[0]!.body.data.key).call('getInstance');
      assert.equal(instance.id, created[0]!.body.data.id);
    });

    it('a number is free again once its instance is deleted, and only then', async () => {
      const number = '5511930000002';
      const first = await create({ options: { number } });
      assert.equal(first.status, 200);
      const again = await create({ options: { number } });
      assert.deepEqual([again.status, again.body], [409, { status: 409, error: { code: 'number_taken', message: `sandbox number ${number} is taken` } }]);
      const removed = await t.admin('DELETE', `/admin/instances/${first.body.data.id}`);
      assert.equal(removed.status, 200);
      const reused = await create({ options: { number } });
      assert.equal(reused.status, 200);
      assert.deepEqual(reused.body.data.options, { number });
      assert.notEqual(reused.body.data.id, first.body.data.id);
    });

    it('of 20 parallel creations with one name, whatever its case and surrounding spaces, exactly one succeeds; the others answer 409 name_taken and leave nothing', async () => {
      const spellings = ['Shop One', 'shop one', 'SHOP ONE', ' Shop One '];
      const before = await list();
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => create({ name: spellings[i % spellings.length] })));
      const created = answers.filter((a) => a.status === 200);
      assert.equal(created.length, 1, JSON.stringify(answers.map((a) => a.status)));
      for (const answer of answers.filter((a) => a.status !== 200)) {
        assert.equal(answer.status, 409);
        assert.equal(answer.body.error.code, 'name_taken');
        assert.match(answer.body.error.message, /^an instance named "(Shop One|shop one|SHOP ONE)" exists \(names are unique, whatever their case\)$/);
        assert.deepEqual(answer.body.error.details, { fields: [{ field: 'body.name', message: answer.body.error.message }] });
      }
      const after = await list();
      assert.equal(after.length, before.length + 1);
      assert.deepEqual(after.filter((r) => r.name.trim().toLowerCase() === 'shop one').map((r) => r.id), [created[0]!.body.data.id]);
    });

    it('a creation refused for its name claims nothing else (its number stays free); unnamed instances are many; a name is free again once its instance is deleted', async () => {
      const first = await create({ name: 'Bakery' });
      assert.equal(first.status, 200);
      const refused = await create({ name: 'bakery', options: { number: '5511930000003' } });
      assert.deepEqual([refused.status, refused.body.error.code], [409, 'name_taken']);
      const withNumber = await create({ name: 'Bakery 2', options: { number: '5511930000003' } });
      assert.equal(withNumber.status, 200, 'the refused creation left the number free');
      const unnamed = await Promise.all([create({}), create({ name: '' }), create({ name: '  ' })]);
      assert.deepEqual(unnamed.map((a) => a.status), [200, 200, 200]);
      assert.equal((await t.admin('DELETE', `/admin/instances/${first.body.data.id}`)).status, 200);
      const again = await create({ name: 'BAKERY' });
      assert.equal(again.status, 200);
      assert.equal(again.body.data.name, 'BAKERY', 'the name is kept as given');
    });

    it('assigned numbers never collide with chosen ones or each other', async () => {
      const answers = await Promise.all(Array.from({ length: 10 }, () => create({})));
      assert.deepEqual(answers.map((a) => a.status), Array(10).fill(200));
      const numbers = (await list()).map((r) => r.options.number);
      assert.equal(new Set(numbers).size, numbers.length);
    });
  });
}

if (redisUrl) {
  describe('instance name and sandbox number uniqueness across two servers sharing one Redis', () => {
    const shared = `parley-e2e-unique-two-${process.pid}-${Date.now()}:`;
    let servers: TestServer[] = [];
    before(async () => {
      const plugins = [
        { package: '@parley/storage-redis', options: { url: redisUrl, keyPrefix: shared } }, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' },
      ];
      servers = [await startTestServer({ plugins }), await startTestServer({ plugins })];
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await deleteKeys(redisUrl!, shared);
    });

    it('of 20 creations with one number spread over both servers, exactly one succeeds', async () => {
      for (const [round, number] of ['5511950000001', '5511950000002', '5511950000003'].entries()) {
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => servers[i % 2]!.admin('POST', '/admin/instances', { name: `r${round}-${i}`, options: { number } })));
        assert.deepEqual(answers.map((a) => a.status).sort(), [200, ...Array(19).fill(409)], `round ${round}`);
        for (const answer of answers.filter((a) => a.status === 409)) assert.equal(answer.body.error.code, 'number_taken');
      }
      const listed = (await servers[1]!.admin('GET', '/admin/instances')).body.data as { options: { number: string } }[];
      assert.deepEqual(listed.map((r) => r.options.number).sort(), ['5511950000001', '5511950000002', '5511950000003']);
    });

    it('of 20 creations with one name spread over both servers, exactly one succeeds', async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => servers[i % 2]!.admin('POST', '/admin/instances', { name: i % 2 ? 'Twin' : 'twin' })));
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, ...Array(19).fill(409)]);
      for (const answer of answers.filter((a) => a.status === 409)) assert.equal(answer.body.error.code, 'name_taken');
    });
  });
}

describe('a store written before unique claims (sqlite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-claims-upgrade-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  /** A sandbox record as an older Parley stored it: the number in its options, no claim. */
  function oldRecord(id: string, number: string, createdAt: number, name = id): InstanceRecord {
    return {
      id, key: `key-${id}-0123456789abcdef`, name, driver: 'sandbox', createdAt, flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(),
      webhookSecret: 'whsec_old', user: null, phoneConnected: false, wantsConnection: false, health: 'healthy', driverOptions: { number }, links: {},
    };
  }

  it('claims the numbers of existing instances at the first start, once; a duplicate of before is kept and logged', async () => {
    const old = new SqliteStorage({ file: join(dataDir, 'parley.db') });
    await old.init();
    await old.instances.create(oldRecord('ins_old_a', '5511940000001', 1_000));
    await old.instances.create(oldRecord('ins_old_b', '5511940000002', 2_000));
    // Two instances of before shared a number (the check of before was not atomic).
    await old.instances.create(oldRecord('ins_old_c', '5511940000001', 3_000));
    await old.close();

    const first = await startTestServer({ storage: 'sqlite', dataDir, captureLogs: true });
    try {
      for (const number of ['5511940000001', '5511940000002']) {
        const res = await first.admin('POST', '/admin/instances', { options: { number } });
        assert.deepEqual([res.status, res.body], [409, { status: 409, error: { code: 'number_taken', message: `sandbox number ${number} is taken` } }]);
      }
      assert.equal(await first.server.context.storage.instances.claimHolder('sandbox:number', '5511940000001'), 'ins_old_a');
      assert.equal(await first.server.context.storage.instances.claimHolder('sandbox:number', '5511940000002'), 'ins_old_b');
      const logs = first.logs.map((line) => JSON.parse(line) as { msg: string; instance?: string; claimed?: number });
      assert.ok(logs.some((l) => l.msg === 'instance shares a unique value with an older instance; left unclaimed' && l.instance === 'ins_old_c'));
      // Two numbers and three names.
      assert.ok(logs.some((l) => l.msg === 'unique values of existing instances claimed' && l.claimed === 5));
      assert.deepEqual((await first.admin('GET', '/admin/instances')).body.data.map((r: { id: string }) => r.id), ['ins_old_a', 'ins_old_b', 'ins_old_c']);
    } finally {
      await first.stop();
    }

    const second = await startTestServer({ storage: 'sqlite', dataDir, captureLogs: true });
    try {
      assert.ok(!second.logs.some((line) => line.includes('unique values of existing instances claimed')));
      assert.ok(!second.logs.some((line) => line.includes('left unclaimed')));
      const res = await second.admin('POST', '/admin/instances', { options: { number: '5511940000002' } });
      assert.equal(res.status, 409);
    } finally {
      await second.stop();
    }
  });
});

describe('a store written before instance names were unique (sqlite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-names-upgrade-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts with two instances of one name: the older holds it, the later keeps its name unclaimed (logged), both run; the name stays taken', async () => {
    const old = new SqliteStorage({ file: join(dataDir, 'parley.db') });
    await old.init();
    const record = (id: string, name: string, createdAt: number): InstanceRecord => ({
      id, key: `key-${id}-0123456789abcdef`, name, driver: 'sandbox', createdAt, flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(),
      webhookSecret: 'whsec_old', user: null, phoneConnected: false, wantsConnection: false, health: 'healthy', driverOptions: { number: `551194100000${createdAt}` }, links: {},
    });
    await old.instances.create(record('ins_shop_a', 'Shop', 1));
    await old.instances.create(record('ins_shop_b', 'shop', 2));
    await old.instances.create(record('ins_unnamed_a', '', 3));
    await old.instances.create(record('ins_unnamed_b', '', 4));
    await old.close();

    const t = await startTestServer({ storage: 'sqlite', dataDir, captureLogs: true });
    try {
      assert.equal(await t.server.context.storage.instances.claimHolder('instance-name', 'shop'), 'ins_shop_a');
      const logs = t.logs.map((line) => JSON.parse(line) as { msg: string; instance?: string; namespace?: string });
      assert.ok(logs.some((l) => l.msg === 'instance shares a unique value with an older instance; left unclaimed' && l.instance === 'ins_shop_b' && l.namespace === 'instance-name'));
      const listed = (await t.admin('GET', '/admin/instances')).body.data as { id: string; name: string }[];
      assert.deepEqual(listed.map((r) => [r.id, r.name]), [['ins_shop_a', 'Shop'], ['ins_shop_b', 'shop'], ['ins_unnamed_a', ''], ['ins_unnamed_b', '']]);
      for (const id of ['ins_shop_a', 'ins_shop_b']) {
        const { instance } = await t.client(`key-${id}-0123456789abcdef`).call('getInstance');
        assert.equal(instance.id, id);
      }
      const res = await t.admin('POST', '/admin/instances', { name: 'SHOP' });
      assert.deepEqual([res.status, res.body.error.code], [409, 'name_taken']);
    } finally {
      await t.stop();
    }
  });
});
