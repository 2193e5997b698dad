import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactPath, REDACTED_PATHS, resolveLogFormat, unmatchedPath } from '../src/logging/logger.js';
import { captureLogger } from './support.js';

describe('resolveLogFormat', () => {
  it('auto is pretty on a terminal and JSON otherwise; json and pretty hold either way', () => {
    assert.equal(resolveLogFormat('auto', true), 'pretty');
    assert.equal(resolveLogFormat('auto', false), 'json');
    assert.equal(resolveLogFormat('auto', undefined), 'json');
    assert.equal(resolveLogFormat('json', true), 'json');
    assert.equal(resolveLogFormat('pretty', false), 'pretty');
  });
});

describe('redactPath', () => {
  const known = (segment: string) => ['admin', 'docs', 'healthz', 'sandbox'].includes(segment);

  it('replaces an instance key in the first segment', () => {
    assert.equal(redactPath('/Zk3xQ9s-secret_KEY/message/text', known), '/:key/message/text');
    assert.equal(redactPath('/Zk3xQ9s-secret_KEY', known), '/:key');
    assert.equal(redactPath('/Zk3xQ9s-secret_KEY/instance?x=1', known), '/:key/instance?x=1');
  });

  it('keeps paths under known prefixes and the root', () => {
    assert.equal(redactPath('/admin/instances', known), '/admin/instances');
    assert.equal(redactPath('/healthz', known), '/healthz');
    assert.equal(redactPath('/', known), '/');
  });
});

describe('unmatchedPath', () => {
  const known = (segment: string) => ['admin', 'sandbox', 'docs'].includes(segment);

  it('keeps only a known first segment, since a key may sit in any later one', () => {
    assert.equal(unmatchedPath('/admin/instances/Zk3xQ9s-secret_KEY/typo', known), '/admin/…');
    assert.equal(unmatchedPath('/sandbox/Zk3xQ9s-secret_KEY/scan/x', known), '/sandbox/…');
    assert.equal(unmatchedPath('/admin', known), '/admin');
  });

  it('hides an unknown first segment and everything after it', () => {
    assert.equal(unmatchedPath('/Zk3xQ9s-secret_KEY/no/route', known), '/:key/…');
    assert.equal(unmatchedPath('/Zk3xQ9s-secret_KEY', known), '/:key');
    assert.equal(unmatchedPath('/', known), '/');
  });
});

describe('createLogger redaction', () => {
  it('never writes keys, tokens, secrets, credentials or authorization headers', () => {
    const { logger, lines } = captureLogger('info');
    logger.info({
      key: 'SECRET-KEY-1', instanceKey: 'SECRET-KEY-2', token: 'SECRET-TOKEN-1', adminToken: 'SECRET-ADMIN', accessToken: 'SECRET-ACCESS',
      appSecret: 'SECRET-APP', verifyToken: 'SECRET-VERIFY', webhookSecret: 'whsec_SECRET', secret: 'SECRET-PLAIN', uri: 'mongodb://u:SECRET-PW@h/db',
      proxy: 'http://u:SECRET-PROXY@h:1', password: 'SECRET-PASSWORD',
      instance: { key: 'SECRET-NESTED-KEY', webhookSecret: 'whsec_SECRET-NESTED', accessToken: 'SECRET-NESTED-ACCESS', id: 'ins_visible' },
      req: { headers: { authorization: 'Bearer SECRET-BEARER', cookie: 'sid=SECRET-COOKIE', host: 'visible-host' } },
      headers: { authorization: 'Bearer SECRET-BEARER-2' },
    }, 'something happened');
    assert.equal(lines.length, 1);
    assert.doesNotMatch(lines[0]!, /SECRET/);
    const line = JSON.parse(lines[0]!);
    assert.equal(line.key, '[redacted]');
    assert.equal(line.instance.key, '[redacted]');
    assert.equal(line.instance.id, 'ins_visible');
    assert.equal(line.req.headers.authorization, '[redacted]');
    assert.equal(line.req.headers.host, 'visible-host');
    assert.equal(line.service, 'parley');
    assert.equal(line.msg, 'something happened');
    assert.match(line.time, /^\d{4}-\d{2}-\d{2}T/);
  });

  it('also redacts in child loggers\' bindings', () => {
    const { logger, lines } = captureLogger('info');
    logger.child({ token: 'SECRET-CHILD' }).info({ a: 1 }, 'child line');
    assert.doesNotMatch(lines.join('\n'), /SECRET-CHILD/);
  });

  it('lists the redacted paths', () => {
    for (const path of ['key', '*.key', 'adminToken', 'webhookSecret', '*.webhookSecret', 'req.headers.authorization']) assert.ok(REDACTED_PATHS.includes(path), path);
  });
});
