import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeStored, MESSAGE_STATUS_RANK, type MessageRecord } from '@parley/core';
import { deliveryOf, idempotencyOf, messageOf, outboundOf, STATUS_RANK_SQL } from '../src/index.js';

describe('storage-sql rows', () => {
  it('maps an outbound row, leaving NULL columns out', () => {
    const row = { seq: 7, instance: 'i1', id: 'm1', lane: 'to:1', ord: 3, due_at: 10, created_at: 5, attempts: 0, last_error: null, lease_until: null, payload: '{}' };
    assert.deepEqual(outboundOf(row), { id: 'm1', instance: 'i1', lane: 'to:1', dueAt: 10, createdAt: 5, payload: '{}', order: 3, attempts: 0 });
    assert.deepEqual(outboundOf({ ...row, last_error: 'boom', lease_until: 99 }),
      { id: 'm1', instance: 'i1', lane: 'to:1', dueAt: 10, createdAt: 5, payload: '{}', order: 3, attempts: 0, leasedUntil: 99, lastError: 'boom' });
  });

  it('maps a delivery row, keeping the last error and status when present', () => {
    const row = {
      seq: 1, id: 'd1', instance: 'i1', url: 'http://h/', format: 'native', event_id: 'e1', event_type: 'message', body: '{}',
      created_at: 1, attempts: 2, next_attempt_at: 3, last_error: null, last_status: null, lease_until: null, dead_at: null,
    };
    const plain = deliveryOf(row);
    assert.equal('lastError' in plain || 'lastStatus' in plain, false);
    assert.deepEqual(deliveryOf({ ...row, last_error: 'HTTP 500', last_status: 500 }), {
      id: 'd1', instance: 'i1', url: 'http://h/', format: 'native', eventId: 'e1', eventType: 'message', body: '{}',
      createdAt: 1, attempts: 2, nextAttemptAt: 3, lastError: 'HTTP 500', lastStatus: 500,
    });
  });

  it('takes a message status from its own column', () => {
    const record = { id: 'm1', status: 'PENDING', content: { text: 'hi' } } as unknown as MessageRecord;
    assert.equal(messageOf({ record: encodeStored(record), status: 'READ' }).status, 'READ');
  });

  it('ranks every status in SQL as the core ranks it', () => {
    for (const [name, rank] of Object.entries(MESSAGE_STATUS_RANK)) assert.match(STATUS_RANK_SQL, new RegExp(`WHEN '${name}' THEN ${rank}\\b`));
  });

  it('reads an idempotency row only while it lives', () => {
    const row = { state: 'done', fingerprint: 'f', owner: 'o', expires_at: 100, answer: JSON.stringify({ status: 201, body: { ok: true } }) };
    assert.equal(idempotencyOf(row, 100), null);
    assert.equal(idempotencyOf(undefined, 1), null);
    assert.deepEqual(idempotencyOf(row, 99), { state: 'done', fingerprint: 'f', owner: 'o', expiresAt: 100, answer: { status: 201, body: { ok: true } } });
    assert.equal('answer' in idempotencyOf({ ...row, answer: null }, 1)!, false);
  });
});
