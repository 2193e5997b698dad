import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { UpstreamError, ValidationError } from '@parley/core';
import { DialGuard, type Dial } from '@parley/net';
import { startCountingListener, type CountingListener } from '@parley/testkit';
import { connectExternalDatabase } from '../src/index.js';
import { startFakeMongo, type FakeMongo } from './support/fake-mongo.js';

const HINT = '(set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)';
/** Public addresses the test's resolver gives the deployment's names; the test's dialler sends them to fake servers on loopback. */
const PUBLIC = { seed: '93.184.216.34', second: '93.184.216.35' };
const NAMES: Record<string, string> = { 'seed.mongo.example': PUBLIC.seed, 'second.mongo.example': PUBLIC.second };

/**
 * A MongoDB connection string given through the API names seeds, but the driver then dials whatever
 * the deployment names in its `hello` answers (replica-set members, the primary): that is where the
 * private network could be reached (issue 24, item 6). Fake MongoDB servers on loopback answer the
 * real driver's handshake and commands; names resolve, through the guard's injected resolver, to
 * public-looking addresses that the injected dialler sends to those fakes, so the seeds pass as
 * public while a loopback listener stands for the private member and counts every connection.
 */
describe('an external database cannot lead the driver to a private replica-set member', () => {
  let member: CountingListener;
  const fakes: FakeMongo[] = [];
  let dials: string[] = [];

  before(async () => {
    member = await startCountingListener();
  });
  after(() => member.close());
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((fake) => fake.close()));
    dials = [];
  });

  /** A guard whose resolver knows the test's names and whose dialler reaches the fakes for their public addresses. */
  function guardFor(routes: Record<string, FakeMongo>): DialGuard {
    const dial: Dial = (address, port) => {
      dials.push(`${address}:${port}`);
      const fake = routes[address];
      return fake ? connect(fake.port, '127.0.0.1') : connect({ host: address, port });
    };
    return new DialGuard({ resolve: async (host) => (NAMES[host] ? [NAMES[host]] : []), dial });
  }
  async function fake(hello: Record<string, unknown>): Promise<FakeMongo> {
    const started = await startFakeMongo({ hello });
    fakes.push(started);
    return started;
  }
  const uri = 'mongodb://seed.mongo.example:27017/?replicaSet=rs0&serverSelectionTimeoutMS=1500';

  it('a seed naming a loopback primary and a private secondary: 400 naming the refused address, and nothing dials them', async () => {
    const privateMember = `127.0.0.1:${member.port}`;
    const seed = await fake({
      setName: 'rs0', hosts: ['seed.mongo.example:27017', privateMember, '10.0.0.7:27017'], primary: privateMember,
      me: 'seed.mongo.example:27017', isWritablePrimary: false, ismaster: false, secondary: true,
    });
    const guard = guardFor({ [PUBLIC.seed]: seed });
    await assert.rejects(connectExternalDatabase({ uri, dbName: 'parley' }, { timeoutMs: 4000, guard }), (err: unknown) => {
      assert.ok(err instanceof ValidationError, `expected ValidationError, got ${String(err)}`);
      assert.equal(err.status, 400);
      assert.match(err.message, /^body\.uri names a deployment the server may not reach: (127\.0\.0\.1:\d+|10\.0\.0\.7:27017) is a private network address /);
      assert.ok(err.message.endsWith(HINT), err.message);
      assert.deepEqual(err.details, { field: 'body.uri', fields: [{ field: 'body.uri', message: err.message }] });
      return true;
    });
    // The seed was reached (through the guard) and answered the handshake; the members it named were not.
    assert.ok(seed.commands.includes('ismaster'), seed.commands.join());
    assert.deepEqual([...new Set(dials)], [`${PUBLIC.seed}:27017`]);
    assert.equal(member.connections(), 0);
  });

  it('a public-looking replica set: discovered through the guard, the member it names is dialled, and the indexes are created', async () => {
    const members = ['seed.mongo.example:27017', 'second.mongo.example:27017'];
    const seed = await fake({ setName: 'rs0', hosts: members, primary: members[0], me: members[0], isWritablePrimary: true, ismaster: true, secondary: false });
    const second = await fake({ setName: 'rs0', hosts: members, primary: members[0], me: members[1], isWritablePrimary: false, ismaster: false, secondary: true });
    const store = await connectExternalDatabase({ uri, dbName: 'parley' }, { timeoutMs: 4000, guard: guardFor({ [PUBLIC.seed]: seed, [PUBLIC.second]: second }) });
    try {
      assert.equal(seed.commands.filter((name) => name === 'createIndexes').length, 3, seed.commands.join());
      // The driver monitors the member it discovered: it was dialled, through the guard, at its public address.
      for (let i = 0; i < 50 && !second.commands.includes('ismaster'); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(second.commands.includes('ismaster'), second.commands.join());
      assert.ok(dials.includes(`${PUBLIC.second}:27017`), dials.join());
    } finally {
      await store.close();
    }
    assert.equal(member.connections(), 0);
  });

  it('with private URLs allowed (PARLEY_ALLOW_PRIVATE_URLS=1) the driver dials the loopback member the seed names', async () => {
    const privateMember = `127.0.0.1:${member.port}`;
    const seed = await fake({
      setName: 'rs0', hosts: [privateMember], primary: privateMember, me: 'elsewhere:1', isWritablePrimary: false, ismaster: false, secondary: true,
    });
    const direct = `mongodb://127.0.0.1:${seed.port}/?replicaSet=rs0&serverSelectionTimeoutMS=800`;
    await assert.rejects(connectExternalDatabase({ uri: direct, dbName: 'parley' }, { timeoutMs: 3000, allowPrivate: true }), (err: unknown) => err instanceof UpstreamError);
    assert.ok(seed.commands.includes('ismaster'));
    assert.ok(member.connections() > 0);
  });
});
