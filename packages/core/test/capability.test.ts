import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CapabilityNotSupportedError, ConflictError, isParleyError, NotFoundError, ParleyError, PayloadTooLargeError, redactUrlCredentials,
  requireCapability, ServiceUnavailableError, UnauthorizedError, UpstreamError, ValidationError, type ChannelCapabilities, type ChatsCapability,
} from '../src/index.js';

describe('requireCapability', () => {
  const chats = { list: async () => [] } as unknown as ChatsCapability;
  const adapter = (capabilities: ChannelCapabilities, gaps?: Record<string, string>) => ({ channel: 'instagram', capabilities, capabilityGaps: gaps });

  it('answers the capability object when present', () => {
    assert.equal(requireCapability(adapter({ chats }), 'chats'), chats);
  });

  it('throws a 422 capability_not_supported naming the channel and the capability', () => {
    assert.throws(() => requireCapability(adapter({ chats }), 'groups'), (err: unknown) => {
      assert.ok(err instanceof CapabilityNotSupportedError);
      assert.equal(err.status, 422);
      assert.equal(err.code, 'capability_not_supported');
      assert.equal(err.message, 'instagram does not support groups');
      assert.equal(err.details, undefined);
      return true;
    });
  });

  it('appends the adapter\'s stated reason for the gap', () => {
    assert.throws(() => requireCapability(adapter({}, { labels: 'labels exist only on business accounts' }), 'labels'), {
      message: 'instagram does not support labels: labels exist only on business accounts',
    });
  });
});

describe('the error model', () => {
  it('maps each error class to its status and code', () => {
    const cases: [ParleyError, number, string][] = [
      [new ValidationError('body.to is required', { fields: [] }), 400, 'validation_failed'],
      [new UnauthorizedError(), 401, 'unauthorized'],
      [new NotFoundError('message 1', 'message_not_found'), 404, 'message_not_found'],
      [new NotFoundError('thing'), 404, 'not_found'],
      [new ConflictError('busy'), 409, 'conflict'],
      [new ConflictError('the instance is not connected', 'not_connected'), 409, 'not_connected'],
      [new PayloadTooLargeError('too big'), 413, 'payload_too_large'],
      [new CapabilityNotSupportedError('whatsapp', 'mobile'), 422, 'capability_not_supported'],
      [new UpstreamError('refused', { retryable: true }), 502, 'upstream_error'],
      [new ServiceUnavailableError('down'), 503, 'service_unavailable'],
    ];
    for (const [err, status, code] of cases) {
      assert.equal(err.status, status, err.name);
      assert.equal(err.code, code, err.name);
      assert.ok(err instanceof Error);
      assert.equal(isParleyError(err), true);
    }
    assert.equal(new NotFoundError('message 1').message, 'message 1 not found');
    assert.equal(new UnauthorizedError().message, 'missing or invalid credentials');
    assert.equal(new ValidationError('x').name, 'ValidationError');
    assert.deepEqual(new UpstreamError('refused', { retryable: true }).details, { retryable: true });
  });

  it('recognises Parley errors by their global brand (another copy of core), never by shape', () => {
    const foreign = Object.defineProperty(new Error('x'), Symbol.for('parley.core.ParleyError'), { value: true });
    assert.equal(isParleyError(foreign), true);
    // http-errors and fs errors carry status and code too; their messages hold file paths.
    const library = Object.assign(new Error("ENOENT: no such file or directory, stat '/srv/app/x'"), { name: 'NotFoundError', status: 404, code: 'ENOENT', expose: true });
    assert.equal(isParleyError(library), false);
    assert.equal(isParleyError(new Error('plain')), false);
    assert.equal(JSON.stringify(new ValidationError('x')), '{"status":400,"code":"validation_failed","name":"ValidationError"}');
    assert.equal(isParleyError({ status: 400, code: 'x', name: 'Fake', message: 'not an Error' }), false);
    assert.equal(isParleyError(null), false);
    assert.equal(isParleyError('validation_failed'), false);
  });
});

describe('redactUrlCredentials', () => {
  it('hides credentials of every URL in free text, also URLs new URL cannot parse', () => {
    assert.equal(redactUrlCredentials('connect mongodb://admin:s3cret@h1:27017,h2:27017/db failed'), 'connect mongodb://***@h1:27017,h2:27017/db failed');
    assert.equal(redactUrlCredentials('socks5://user:pass@1.2.3.4:1080'), 'socks5://***@1.2.3.4:1080');
    assert.equal(redactUrlCredentials('http://host/path?x=a@b'), 'http://host/path?x=a@b');
    assert.equal(redactUrlCredentials('no urls here'), 'no urls here');
  });
});
