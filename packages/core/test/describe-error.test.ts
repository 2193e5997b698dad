import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeError } from '../src/index.js';

describe('describeError', () => {
  it('answers the message of an error, or its name when the message is empty', () => {
    assert.equal(describeError(new Error('connection refused')), 'connection refused');
    assert.equal(describeError(new TypeError('')), 'TypeError');
  });

  it('answers the first cause of an AggregateError', () => {
    const err = new AggregateError([new Error('connect ECONNREFUSED ::1:6379'), new Error('connect ECONNREFUSED 127.0.0.1:6379')], '');
    assert.equal(describeError(err), 'connect ECONNREFUSED ::1:6379');
    assert.equal(describeError(new AggregateError([], 'all failed')), 'all failed');
  });

  it('describes thrown non-errors as strings', () => {
    assert.equal(describeError('plain text'), 'plain text');
    assert.equal(describeError(42), '42');
  });

  it('redacts URL credentials', () => {
    assert.equal(
      describeError(new Error('failed to connect to mongodb://parley:s3cret@db1:27017,db2:27017/parley')),
      'failed to connect to mongodb://***@db1:27017,db2:27017/parley',
    );
    assert.equal(describeError(new AggregateError([new Error('redis://u:p@cache:6379 refused')])), 'redis://***@cache:6379 refused');
  });
});
