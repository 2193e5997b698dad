import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ErrorObject } from 'ajv';
import { describeAjvError, fieldPath, formatAjvErrors } from '../src/http/ajv-errors.js';
import { toExpressPath } from '../src/http/route.js';
import { RouteTable } from '../src/http/route-table.js';
import { ValidationError } from '@parley/core';

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

});

describe('RouteTable', () => {
  const table = new RouteTable<string>();
  for (const [method, path] of [
    ['get', '/{key}/contacts/{number}'], ['get', '/{key}/contacts/blocked'], ['post', '/{key}/contacts/{number}/block'],
    ['get', '/{key}/groups/{groupJid}/invite'], ['get', '/{key}/groups/invite/info'], ['get', '/admin/instances/{key}'],
    ['delete', '/admin/instances/{key}'], ['get', '/healthz'], ['get', '/{key}/chat/{jid}/messages'], ['patch', '/{key}/chat/{jid}'],
  ] as const) table.add(method, path, `${method} ${path}`);

  it('prefers a static segment over a parameter, and backtracks when the static branch has no route', () => {
    assert.deepEqual(table.match('GET', '/k1/contacts/blocked'), { value: 'get /{key}/contacts/blocked', params: { key: 'k1' } });
    assert.deepEqual(table.match('GET', '/k1/contacts/5511'), { value: 'get /{key}/contacts/{number}', params: { key: 'k1', number: '5511' } });
    assert.deepEqual(table.match('GET', '/k1/groups/invite/info'), { value: 'get /{key}/groups/invite/info', params: { key: 'k1' } });
    assert.deepEqual(table.match('GET', '/k1/groups/invite/invite'), { value: 'get /{key}/groups/{groupJid}/invite', params: { key: 'k1', groupJid: 'invite' } });
    // "admin" is a static first segment, yet a key may be spelled "admin" on a route only parameters reach.
    assert.deepEqual(table.match('GET', '/admin/chat/x@s.whatsapp.net/messages'), { value: 'get /{key}/chat/{jid}/messages', params: { key: 'admin', jid: 'x@s.whatsapp.net' } });
  });

  it('matches by method, answers HEAD with GET, and misses unknown paths and methods', () => {
    assert.equal(table.match('DELETE', '/admin/instances/k1')?.value, 'delete /admin/instances/{key}');
    assert.equal(table.match('HEAD', '/healthz')?.value, 'get /healthz');
    assert.equal(table.match('POST', '/healthz'), undefined);
    assert.equal(table.match('GET', '/nowhere'), undefined);
    assert.equal(table.match('GET', '/k1/contacts'), undefined);
    assert.equal(table.match('GET', '/k1/contacts//block'), undefined, 'an empty segment is no parameter');
  });

  it('ignores one trailing slash and the case of static segments, like express', () => {
    assert.equal(table.match('GET', '/healthz/')?.value, 'get /healthz');
    assert.equal(table.match('GET', '/HealthZ')?.value, 'get /healthz');
    assert.deepEqual(table.match('GET', '/K1/Contacts/Blocked')?.params, { key: 'K1' }, 'parameters keep their case');
  });

  it('percent-decodes parameters and answers 400 for broken encoding', () => {
    assert.deepEqual(table.match('PATCH', '/k1/chat/120363%40g.us')?.params, { key: 'k1', jid: '120363@g.us' });
    assert.throws(() => table.match('PATCH', '/k1/chat/%E0%A4%A'), (err: unknown) => err instanceof ValidationError && /path\.jid/.test(err.message));
  });

  it('refuses a duplicate route and lists what it holds', () => {
    assert.throws(() => table.add('get', '/healthz', 'again'), /duplicate route GET \/healthz/);
    assert.equal(table.list().length, 10);
    assert.ok(table.list().includes('PATCH /{key}/chat/{jid}'));
  });
});
