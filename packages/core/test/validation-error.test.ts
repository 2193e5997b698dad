import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError } from '../src/index.js';

describe('ValidationError details.fields', () => {
  it('lists the field a message starts with, as the API names it', () => {
    for (const [message, field] of [
      ['body.channel "nope" is not available; configured channels: sandbox', 'body.channel'],
      ['body.buttons[1].id repeats an earlier button id', 'body.buttons[1].id'],
      ['query.after must be an event id (26 characters, as sent in `id:`)', 'query.after'],
      ['path.channel: instagram is not linked', 'path.channel'],
      ['body must set name or description', 'body'],
    ] as const) {
      assert.deepEqual(new ValidationError(message).details, { fields: [{ field, message }] }, message);
    }
  });

  it('keeps other details beside the field, and fields a caller gave as they are', () => {
    assert.deepEqual(new ValidationError('body.code is wrong', { attemptsLeft: 2 }).details, { attemptsLeft: 2, fields: [{ field: 'body.code', message: 'body.code is wrong' }] });
    const given = { fields: [{ field: 'body.to', message: 'is required' }] };
    assert.equal(new ValidationError('body.to is required', given).details, given);
  });

  it('adds nothing when the message names no field', () => {
    assert.equal(new ValidationError('the request target is not a valid URL').details, undefined);
    assert.equal(new ValidationError('bodyguard is no field').details, undefined);
  });
});
