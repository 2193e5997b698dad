import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isParleyError, ServiceUnavailableError } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { DEFAULT_IDEMPOTENCY_TIMINGS, IdempotencyGuard } from '../src/http/idempotency.js';

const SCOPE = 'ins_test';
const quick = { ...DEFAULT_IDEMPOTENCY_TIMINGS, waitMs: 200, pollMs: 5 };

/** A clock the test moves (the testkit's FakeClock depends on this package). */
class TestClock {
  private t = Date.UTC(2026, 0, 1);
  now(): number { return this.t; }
  advance(ms: number): void { this.t += ms; }
}

function setup() {
  const clock = new TestClock();
  const store = new MemoryStorage(clock).idempotency;
  return { clock, store, guard: new IdempotencyGuard(store, clock, quick) };
}

/** An operation that counts its runs and answers `status`. */
function operation(status = 200) {
  const op = { runs: 0, run: async () => ({ status, body: { status, n: ++op.runs } }) };
  return op;
}

describe('IdempotencyGuard: waiting, leases and what is kept', () => {
  it('a key another server holds: waits by polling the store, then answers the answer it kept', async () => {
    const { clock, store, guard } = setup();
    await store.begin(SCOPE, 'k', { fingerprint: 'fp', owner: 'other-server', now: clock.now(), expiresAt: clock.now() + 60_000 });
    setTimeout(() => void store.complete(SCOPE, 'k', { owner: 'other-server', answer: { status: 200, body: { from: 'other' } }, now: clock.now(), expiresAt: clock.now() + 1000 }), 30);
    const op = operation();
    assert.deepEqual(await guard.run(SCOPE, 'k', 'fp', op.run), { answer: { status: 200, body: { from: 'other' } }, replayed: true });
    assert.equal(op.runs, 0);
  });

  it('a key still held after waitMs: 409 idempotency_key_in_progress; after the lease the key runs again', async () => {
    const { clock, store, guard } = setup();
    await store.begin(SCOPE, 'k', { fingerprint: 'fp', owner: 'crashed', now: clock.now(), expiresAt: clock.now() + quick.leaseMs });
    const op = operation();
    const refusal = await guard.run(SCOPE, 'k', 'fp', op.run).then(() => null, (err: unknown) => err);
    assert.ok(isParleyError(refusal) && refusal.status === 409 && refusal.code === 'idempotency_key_in_progress', String(refusal));
    clock.advance(quick.leaseMs);
    assert.deepEqual(await guard.run(SCOPE, 'k', 'fp', op.run), { answer: { status: 200, body: { status: 200, n: 1 } }, replayed: false });
  });

  it('only successes are kept: after an error answer or a failure the retry runs', async () => {
    const { guard } = setup();
    for (const status of [503, 429, 409, 404, 400]) {
      const op = operation(status);
      await guard.run(SCOPE, `k${status}`, 'fp', op.run);
      await guard.run(SCOPE, `k${status}`, 'fp', op.run);
      assert.equal(op.runs, 2, String(status));
    }
    await assert.rejects(guard.run(SCOPE, 'boom', 'fp', async () => { throw new Error('boom'); }), /boom/);
    const after = operation();
    await guard.run(SCOPE, 'boom', 'fp', after.run);
    assert.equal(after.runs, 1);
    const created = operation(200);
    await guard.run(SCOPE, 'k200', 'fp', created.run);
    assert.equal((await guard.run(SCOPE, 'k200', 'fp', created.run)).replayed, true);
    assert.equal(created.runs, 1);
  });

  it('a cluster\'s internal key: a second attempt gets the first result; one still held by a frozen node is 502 outcome_unknown', async () => {
    const { clock, store, guard } = setup();
    const op = operation();
    assert.deepEqual(await guard.runForwarded(SCOPE, 'f', 'fp', op.run), { answer: { status: 200, body: { status: 200, n: 1 } }, replayed: false });
    assert.deepEqual(await guard.runForwarded(SCOPE, 'f', 'fp', op.run), { answer: { status: 200, body: { status: 200, n: 1 } }, replayed: true });
    assert.equal(op.runs, 1);
    // A scope of its own: a client's key of the same name is another request.
    assert.equal((await guard.run(SCOPE, 'f', 'fp', op.run)).replayed, false);
    // Kept forwardedRetentionMs (10 min), not a day.
    clock.advance(quick.forwardedRetentionMs);
    assert.equal((await guard.runForwarded(SCOPE, 'f', 'fp', op.run)).replayed, false);

    await store.begin(`${SCOPE}:forwarded`, 'frozen', { fingerprint: 'fp', owner: 'frozen-node', now: clock.now(), expiresAt: clock.now() + quick.leaseMs });
    const refusal = await guard.runForwarded(SCOPE, 'frozen', 'fp', op.run).then(() => null, (err: unknown) => err);
    assert.ok(isParleyError(refusal) && refusal.status === 502 && refusal.code === 'outcome_unknown', String(refusal));
    assert.deepEqual(refusal.details, { reason: 'owner_unresponsive', safeRetry: 'Idempotency-Key' });
  });

  it('a success whose answer cannot be kept (storage failing) is still answered: the operation ran', async () => {
    const { store, guard } = setup();
    store.complete = async () => {
      throw new ServiceUnavailableError('storage is unavailable');
    };
    const op = operation();
    assert.deepEqual(await guard.run(SCOPE, 'k', 'fp', op.run), { answer: { status: 200, body: { status: 200, n: 1 } }, replayed: false });
  });

  it('a key held by a server that is gone: a request that creates nothing twice runs at once, any other still waits', async () => {
    const clock = new TestClock();
    const store = new MemoryStorage(clock).idempotency;
    const guard = new IdempotencyGuard(store, clock, quick, { token: () => `here/${Math.random()}`, gone: (owner) => owner.startsWith('dead/') });
    for (const key of ['send', 'group']) {
      await store.begin(SCOPE, key, { fingerprint: 'fp', owner: 'dead/1', now: clock.now(), expiresAt: clock.now() + quick.leaseMs });
    }
    const op = operation();
    const seeds: string[] = [];
    const send = (seed: string) => {
      seeds.push(seed);
      return op.run();
    };
    assert.deepEqual(await guard.run(SCOPE, 'send', 'fp', send, { rerunnable: true }), { answer: { status: 200, body: { status: 200, n: 1 } }, replayed: false });
    assert.deepEqual(seeds, ['dead/1'], 'it runs with the dead run\'s seed: it creates what that run would have');
    assert.equal((await store.get(SCOPE, 'send', clock.now()))?.state, 'done', 'kept under the new holder');
    const refusal = await guard.run(SCOPE, 'group', 'fp', op.run).then(() => null, (err: unknown) => err);
    assert.ok(isParleyError(refusal) && refusal.code === 'idempotency_key_in_progress', String(refusal));
    assert.equal(op.runs, 1);
  });

  it('fingerprints ignore member order and tell bodies apart', () => {
    assert.equal(IdempotencyGuard.fingerprint({ a: 1, b: [1, { y: 2, x: 1 }] }), IdempotencyGuard.fingerprint({ b: [1, { x: 1, y: 2 }], a: 1 }));
    assert.notEqual(IdempotencyGuard.fingerprint({ a: 1 }), IdempotencyGuard.fingerprint({ a: '1' }));
    assert.notEqual(IdempotencyGuard.fingerprint(['post', '/a', {}]), IdempotencyGuard.fingerprint(['post', '/b', {}]));
  });

  it('keyOf: 400 naming the header for empty, long, spaced or repeated keys', () => {
    assert.equal(IdempotencyGuard.keyOf(undefined), undefined);
    assert.equal(IdempotencyGuard.keyOf('a'.repeat(255)), 'a'.repeat(255));
    for (const bad of ['', 'a'.repeat(256), 'a b', 'é', ['a', 'b']]) {
      assert.throws(() => IdempotencyGuard.keyOf(bad), (err: unknown) => isParleyError(err) && err.status === 400 && /header\.Idempotency-Key/.test(err.message));
    }
  });
});
