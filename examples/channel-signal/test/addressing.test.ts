import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError } from '@parley/core';
import { normalizeSignalAddress, SIGNAL_ADDRESSING } from '../src/index.js';

describe('Signal addressing', () => {
  it('keeps account UUIDs in lower case and group ids as they are, and tells groups from people', () => {
    assert.equal(normalizeSignalAddress(' 7C9E6679-7425-40DE-944B-E07FC1F90AE7 ', 'body.to'), '7c9e6679-7425-40de-944b-e07fc1f90ae7');
    assert.equal(normalizeSignalAddress('group.dGhpcyBpcyBhIGdyb3VwIGlkIQ==', 'body.to'), 'group.dGhpcyBpcyBhIGdyb3VwIGlkIQ==');
    assert.equal(SIGNAL_ADDRESSING.kind!('group.dGhpcyBpcyBhIGdyb3VwIGlkIQ=='), 'group');
    assert.equal(SIGNAL_ADDRESSING.kind!('7c9e6679-7425-40de-944b-e07fc1f90ae7'), 'person');
    assert.equal(SIGNAL_ADDRESSING.phoneNumbers, false);
  });

  it('refuses phone numbers and anything else, naming the field', () => {
    for (const bad of ['5511999990000', '5511999990000@s.whatsapp.net', 'group.', '7c9e6679-7425-40de-944b', '']) {
      assert.throws(() => normalizeSignalAddress(bad, 'body.to'), (err: unknown) => err instanceof ValidationError && /^body\.to must be a Signal account UUID/.test(err.message), bad);
    }
  });
});
