import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serviceUrlOrSkip } from '@parley/testkit';
import { S3TestServer } from '@parley/media-s3/testing';
import { PostgresStorage } from '@parley/storage-postgres';
import { createTestDatabase, type TestDatabase } from '@parley/storage-postgres/testing';
import { runParley as parley } from '../support/parley-cli.js';
import { startTestServer } from '../support/test-server.js';

const serverUrl = serviceUrlOrSkip('DATABASE_URL', 'parley storage copy of media in S3 to PostgreSQL');

const ALICE = '5511930000201';
const BOB = '5511930000202';
/** More than one page of `--batch 2`, and bytes that are not text. */
const IMAGES = [0, 1, 2].map((i) => Buffer.from(`89504e470d0a1a0a0000000d49484452000000010000000108060000${i}0ff`, 'hex'));

interface Summary { instances: { id: string; media: number }[] }

if (serverUrl) {
  describe('parley storage copy: SQLite with media in S3 to PostgreSQL (media in the database, another bucket prefix, or the same)', () => {
    let dir: string;
    let s3: S3TestServer;
    const databases: TestDatabase[] = [];
    let source: string;
    let bob = { id: '', key: '' };
    const imageIds: string[] = [];
    /** A configuration file of the storage entry and a media-s3 plugin with `prefix` (none: media in the storage). */
    const config = (name: string, storage: Record<string, unknown>, prefix?: string) => {
      const file = join(dir, `${name}.json`);
      const media = prefix === undefined ? [] : [{ package: '@parley/media-s3', options: { bucket: s3.bucket, endpoint: s3.endpoint, prefix } }];
      writeFileSync(file, JSON.stringify({ dataDir: './data', plugins: [storage, ...media, { package: '@parley/channel-sandbox' }] }));
      return file;
    };
    const postgres = async (label: string) => {
      const database = await createTestDatabase(serverUrl, label);
      databases.push(database);
      return database;
    };
    /** The object under `prefix` of bob's image `i`, as any HTTP client reads it (s3rver answers unsigned GETs). */
    const object = async (prefix: string, i: number) => {
      const res = await fetch(`${s3.endpoint}/${s3.bucket}/${prefix}${bob.id}/${imageIds[i]}`);
      return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
    };

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'parley-copy-s3-'));
      const dataDir = join(dir, 'data');
      mkdirSync(dataDir, { mode: 0o700 });
      s3 = await S3TestServer.start();
      source = config('source', { package: '@parley/storage-sqlite' }, 'src/');
      const t = await startTestServer({ storage: 'sqlite', dataDir, extraPlugins: [{ package: '@parley/media-s3', options: { bucket: s3.bucket, endpoint: s3.endpoint, prefix: 'src/' } }] });
      try {
        const alice = await t.connectedSandbox({ name: 'alice', number: ALICE });
        bob = await t.connectedSandbox({ name: 'bob', number: BOB });
        await t.client(bob.key).call('updateInstanceFlags', { query: { saveMedia: true } });
        for (const image of IMAGES) {
          imageIds.push((await t.client(alice.key).call('sendBase64Image', { body: { to: BOB, base64: `data:image/png;base64,${image.toString('base64')}` } })).data.key.id);
        }
        for (const [i, id] of imageIds.entries()) await t.waitFor(async () => (await object('src/', i)).status === 200 || undefined, 10_000, `bob saved image ${id} in the bucket`);
        await t.settle();
      } finally {
        await t.stop();
      }
    });

    after(async () => {
      for (const database of databases) await database.drop();
      await s3?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('copies every blob out of the bucket into PostgreSQL, where a server on it serves them', { timeout: 120_000 }, async () => {
      const database = await postgres('copys3db');
      const copied = await parley(dir, '--json', 'storage', 'copy', '--from', source, '--to', JSON.stringify({ package: '@parley/storage-postgres', options: { url: database.url } }), '--batch', '2');
      assert.equal(copied.code, 0, copied.stderr);
      const summary = JSON.parse(copied.stdout) as Summary;
      const bobsObjects = (await s3.keys(`src/${bob.id}/`)).length;
      assert.ok(bobsObjects >= IMAGES.length);
      assert.equal(summary.instances.find((c) => c.id === bob.id)!.media, bobsObjects, 'every object of bob\'s, the images and what else the sandbox keeps');
      const storage = new PostgresStorage({ url: database.url });
      await storage.init();
      try {
        for (const [i, image] of IMAGES.entries()) assert.deepEqual(await storage.media.get(bob.id, imageIds[i]!), { data: image, mimetype: 'image/png' });
      } finally {
        await storage.close();
      }
      const t = await startTestServer({ plugins: [{ package: '@parley/storage-postgres', options: { url: database.url, poolSize: 4 } }, { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } }] });
      try {
        const served = await t.request('GET', `/${bob.key}/message/${imageIds[2]}/media?format=binary`);
        assert.equal(served.status, 200);
        assert.ok(served.raw.equals(IMAGES[2]!));
      } finally {
        await t.stop();
      }
    });

    it('streams every object to another prefix of a bucket the target uses, with its type', { timeout: 120_000 }, async () => {
      const database = await postgres('copys3s3');
      const copied = await parley(dir, '--json', 'storage', 'copy', '--from', source, '--to', config('target', { package: '@parley/storage-postgres', options: { url: database.url } }, 'dst/'));
      assert.equal(copied.code, 0, copied.stderr);
      const names = async (prefix: string) => (await s3.keys(prefix)).map((key) => key.slice(prefix.length));
      assert.deepEqual(await names('dst/'), await names('src/'));
      for (const [i, image] of IMAGES.entries()) assert.deepEqual(await object('dst/', i), { status: 200, type: 'image/png', bytes: image });
      const summary = JSON.parse(copied.stdout) as Summary;
      assert.equal(summary.instances.reduce((sum, c) => sum + c.media, 0), (await names('src/')).length);
    });

    it('leaves the media where it is when the target uses the same bucket and prefix, and says so', { timeout: 120_000 }, async () => {
      const database = await postgres('copys3same');
      const before_ = await s3.keys('');
      const copied = await parley(dir, '--json', 'storage', 'copy', '--from', source, '--to', config('same', { package: '@parley/storage-postgres', options: { url: database.url } }, 'src/'));
      assert.equal(copied.code, 0, copied.stderr);
      assert.match(copied.stderr, new RegExp(`${bob.id} \\(bob\\): media left in s3://${s3.bucket}/src/ at http://127\\.0\\.0\\.1:\\d+, which the target uses too`));
      assert.deepEqual((JSON.parse(copied.stdout) as Summary).instances.map((c) => c.media), [0, 0]);
      assert.deepEqual(await s3.keys(''), before_, 'no object written');
    });
  });
}
