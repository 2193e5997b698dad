import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PACING_OFF, type PacingPolicy } from '@parley/core';
import { Pacer, RESERVE_HORIZON_MS } from '../src/send/pacer.js';

const T = Date.UTC(2030, 0, 1, 12);
const policy = (changes: Partial<PacingPolicy>): PacingPolicy => ({ ...PACING_OFF, ...changes });

describe('Pacer', () => {
  it('paces nothing under PACING_OFF, except a platform\'s block', () => {
    const pacer = new Pacer();
    assert.equal(pacer.reserve('i', 'a', T, PACING_OFF, 'm1'), T);
    assert.equal(pacer.reserve('i', 'a', T, PACING_OFF, 'm2'), T);
    pacer.block('i', T + 5_000);
    assert.equal(pacer.reserve('i', 'a', T, PACING_OFF, 'm3'), T + 5_000);
  });

  it('gap plus jitter between sends, the recipient gap per recipient, each slot kept for its send', () => {
    const randoms = [0.5, 0.999, 0];
    const pacer = new Pacer(() => randoms.shift() ?? 0);
    const p = policy({ minGapMs: 1_000, jitterMs: 1_000, recipientGapMs: 5_000 });
    assert.equal(pacer.reserve('i', 'a', T, p, 'm1'), T);
    assert.equal(pacer.reserve('i', 'b', T, p, 'm2'), T + 1_000 + 500);
    assert.equal(pacer.reserve('i', 'a', T, p, 'm3'), T + 5_000, 'the recipient gap rules over gap + jitter (1999 ms)');
    assert.equal(pacer.slotOf('i', 'm3'), T + 5_000);
    assert.equal(pacer.slotOf('i', 'm3'), undefined, 'a slot is taken once');
    assert.equal(pacer.slotOf('i', 'm1'), undefined, 'a send that leaves at once holds no slot');
  });

  it('per-hour counts, and slots beyond the horizon are answered but not reserved', () => {
    const pacer = new Pacer();
    const p = policy({ perHour: 2 });
    assert.equal(pacer.reserve('i', 'a', T, p, 'm1'), T);
    assert.equal(pacer.reserve('i', 'b', T, p, 'm2'), T);
    const late = pacer.reserve('i', 'c', T, p, 'm3');
    assert.equal(late, T + 3_600_000);
    assert.ok(late > T + RESERVE_HORIZON_MS);
    assert.equal(pacer.slotOf('i', 'm3'), undefined);
    // Not reserved: asking again at that time gets it.
    assert.equal(pacer.reserve('i', 'c', late, p, 'm3'), late);
  });
});
