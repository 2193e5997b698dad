import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ErrorObject } from 'ajv';
import { describeAjvError, fieldPath, formatAjvErrors } from '../src/http/ajv-errors.js';
import { specificity, toExpressPath } from '../src/http/route.js';

const error = (keyword: string, instancePath: string, params: Record<string, unknown>, message?: string) =>
  ({ keyword, instancePath, params, message, schemaPath: '#' }) as ErrorObject;

describe('ajv error messages', () => {
  it('fieldPath turns JSON pointers into dotted paths with array indices', () => {
    assert.equal(fieldPath('body', ''), 'body');
    assert.equal(fieldPath('body', '/buttons/0/id'), 'body.buttons[0].id');
    assert.equal(fieldPath('query', '/a~1b/c~0d'), 'query.a/b.c~d');
  });

  it('describes each keyword naming the field', () => {
    assert.deepEqual(describeAjvError(error('required', '/location', { missingProperty: 'latitude' }), 'body'),
      { field: 'body.location.latitude', message: 'body.location.latitude is required' });
    assert.deepEqual(describeAjvError(error('additionalProperties', '', { additionalProperty: 'foo' }), 'body'),
      { field: 'body.foo', message: 'body.foo is not allowed' });
    assert.deepEqual(describeAjvError(error('enum', '/status', { allowedValues: ['a', 1] }), 'body'),
      { field: 'body.status', message: 'body.status must be one of "a", 1' });
    assert.deepEqual(describeAjvError(error('type', '/to', { type: 'string' }), 'body'), { field: 'body.to', message: 'body.to must be string' });
    assert.deepEqual(describeAjvError(error('maxLength', '/text', { limit: 3 }, 'must NOT have more than 3 characters'), 'body'),
      { field: 'body.text', message: 'body.text must NOT have more than 3 characters' });
  });

  it('joins several errors once each and drops `if` noise', () => {
    assert.equal(formatAjvErrors([
      error('type', '/a', { type: 'string' }), error('type', '/a', { type: 'string' }), error('if', '', {}, 'must match "then" schema'),
      error('required', '', { missingProperty: 'b' }),
    ], 'options'), 'options.a must be string; options.b is required');
  });
});

describe('route paths', () => {
  it('toExpressPath converts OpenAPI templates', () => {
    assert.equal(toExpressPath('/{key}/message/{messageId}/{type}'), '/:key/message/:messageId/:type');
    assert.equal(toExpressPath('/healthz'), '/healthz');
  });

  it('specificity sorts static segments before parameters at the same position', () => {
    const paths = ['/{key}/contacts/{number}', '/{key}/contacts/blocked', '/{key}/groups/{groupJid}/invite', '/{key}/groups/invite/info', '/admin/instances/{key}'];
    const sorted = [...paths].sort((a, b) => specificity(a).localeCompare(specificity(b)));
    assert.ok(sorted.indexOf('/{key}/contacts/blocked') < sorted.indexOf('/{key}/contacts/{number}'));
    assert.ok(sorted.indexOf('/{key}/groups/invite/info') < sorted.indexOf('/{key}/groups/{groupJid}/invite'));
  });
});
