import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { PostgresStorage } from '../src/index.js';
import { createTestDatabase, postgresUrlOrSkip, type TestDatabase } from './pg-env.js';

describe('@parley/storage-postgres rate-limit counters (shared by the servers on one schema)', () => {
  const serverUrl = postgresUrlOrSkip('postgres rate limits');
  if (!serverUrl) return;
  let database: TestDatabase;
  const stores: PostgresStorage[] = [];
  before(async () => {
    database = await createTestDatabase(serverUrl, 'ratelimit');
    for (let i = 0; i < 2; i++) {
      const storage = new PostgresStorage({ url: database.url, schema: 'limits', poolSize: 2 });
      await storage.init();
      stores.push(storage);
    }
  });
  after(async () => {
    for (const storage of stores) await storage.close();
    await database.drop();
  });

  it('two servers count one key together; over the limit it answers the block left; other keys and names count apart', async () => {
    const options = { name: 'auth-failures', points: 3, durationSeconds: 60, blockSeconds: 2 };
    const [one, two] = stores.map((s) => s.rateLimiter(options));
    assert.deepEqual([await one!.hit('10.0.0.1'), await two!.hit('10.0.0.1'), await one!.hit('10.0.0.1')], [0, 0, 0]);
    const blocked = await two!.hit('10.0.0.1');
    assert.ok(blocked > 1500 && blocked <= 2000, `blocked for the block time: ${blocked} ms`);
    const again = await one!.hit('10.0.0.1');
    assert.ok(again > 0 && again <= blocked, `still blocked, no longer: ${again} ms`);
    assert.equal(await one!.hit('10.0.0.2'), 0, 'another key counts apart');
    assert.equal(await stores[0]!.rateLimiter({ ...options, name: 'other' }).hit('10.0.0.1'), 0, 'another name counts apart');
  });

  it('starts a new window once the last one ended, and a hit sweeps rows of windows long ended', async () => {
    const limiter = stores[0]!.rateLimiter({ name: 'short', points: 1, durationSeconds: 0.3, blockSeconds: 0 });
    assert.equal(await limiter.hit('k'), 0);
    const over = await limiter.hit('k');
    assert.ok(over > 0 && over <= 300, `blocked until the window ends: ${over} ms`);
    await new Promise((r) => setTimeout(r, 350));
    assert.equal(await limiter.hit('k'), 0, 'a new window');
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query("UPDATE limits.rate_limits SET window_end = window_end - interval '2 minutes' WHERE name = 'auth-failures'");
      await limiter.hit('k');
      assert.equal((await admin.query("SELECT 1 FROM limits.rate_limits WHERE name = 'auth-failures'")).rowCount, 0);
    } finally {
      await admin.end();
    }
  });
});
