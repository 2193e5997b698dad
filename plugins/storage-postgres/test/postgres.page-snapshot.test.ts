import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MessageRecord } from '@parley/core';
import { PgDatabase } from '../src/pg-database.js';
import type { Queryable, Row } from '../src/queryable.js';
import { PgMessageRepository } from '../src/repositories/messages.pg.js';
import { createTestDatabase, postgresUrlOrSkip, type TestDatabase } from './pg-env.js';

const CHAT = '5511900000009@s.whatsapp.net';

function record(id: string): MessageRecord {
  return { key: { remoteJid: CHAT, fromMe: false, id }, message: { conversation: id }, messageTimestamp: '1700000000', status: 'DELIVERY_ACK' };
}

describe('@parley/storage-postgres chat pages', () => {
  const serverUrl = postgresUrlOrSkip('postgres storage: a chat page and its total from one snapshot');
  if (!serverUrl) return;
  let database: TestDatabase;
  let db: PgDatabase;
  before(async () => {
    database = await createTestDatabase(serverUrl, 'pagesnap');
    db = new PgDatabase({ url: database.url, schema: 'pagesnap', poolSize: 4, synchronousCommit: 'on', timeoutMs: 5_000 });
    await db.open();
  });
  after(async () => {
    await db.close();
    await database.drop();
  });

  it('never counts a message in `total` that the page does not list, when one is stored while the page is read', async () => {
    const writer = new PgMessageRepository(db);
    await writer.upsert('i1', record('m1'));
    await db.flush();
    // Reads whose first row set is answered before a second message is stored (and committed), and whose
    // single-row reads wait for that: what two statements of one page read at once may see under load.
    const stored = Promise.withResolvers<void>();
    let first = true;
    const reads: Queryable = {
      all: async <T extends Row>(sql: string, params?: unknown[]) => {
        const rows = await db.reads.all<T>(sql, params);
        if (first) {
          first = false;
          await writer.upsert('i1', record('m2'));
          await db.flush();
          stored.resolve();
        }
        return rows;
      },
      get: async <T extends Row>(sql: string, params?: unknown[]) => {
        await stored.promise;
        return db.reads.get<T>(sql, params);
      },
      run: (sql, params) => db.reads.run(sql, params),
    };
    const reader = new PgMessageRepository(Object.assign(Object.create(db) as PgDatabase, { reads }));
    const page = await reader.listByChat('i1', CHAT, { page: 1, limit: 20 });
    assert.equal(page.total, page.items.length, `total ${page.total} with ${page.items.length} listed`);
    assert.deepEqual(page.items.map((m) => m.key.id), ['m1']);
    const after = await new PgMessageRepository(db).listByChat('i1', CHAT, { page: 1, limit: 20 });
    assert.equal(after.total, 2);
    assert.deepEqual(after.items.map((m) => m.key.id).sort(), ['m1', 'm2']);
  });
});
