import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ServiceUnavailableError, UpstreamError, ValidationError } from '@parley/core';
import { DialGuard } from '@parley/net';
import { startCountingListener, type CountingListener } from '@parley/testkit';
import { connectExternalDatabase } from '../src/index.js';
import { MongoConnection } from '../src/mongo-connection.js';

const HINT = '(set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)';

/**
 * `POST /{key}/instance/mongodb` hands a key holder's connection string to the MongoDB driver, which
 * dials whatever it names. Unless private URLs are allowed, nothing it names on a private network may
 * be dialled: a loopback listener counts every connection the driver makes, and must count none.
 */
describe('an external database URI cannot point the server at private networks', () => {
  let listener: CountingListener;
  before(async () => {
    listener = await startCountingListener();
  });
  after(() => listener.close());

  const connect = (uri: string, allowPrivate = false) => connectExternalDatabase({ uri, dbName: 'parley' }, { timeoutMs: 1000, allowPrivate });
  function refused(pattern: RegExp) {
    return (err: unknown) => {
      assert.ok(err instanceof ValidationError, `expected ValidationError, got ${String(err)}`);
      assert.equal(err.status, 400);
      assert.match(err.message, pattern);
      assert.ok(err.message.endsWith(HINT), err.message);
      assert.deepEqual(err.details, { field: 'body.uri', fields: [{ field: 'body.uri', message: err.message }] });
      return true;
    };
  }

  it('a loopback host in every spelling, alone or after another seed: a 400 before any connection', async () => {
    const p = listener.port;
    for (const uri of [
      `mongodb://127.0.0.1:${p}/?serverSelectionTimeoutMS=500`,
      `mongodb://u:secret@2130706433:${p}/`,
      `mongodb://0.0.0.0:${p}/`,
      `mongodb://[::ffff:127.0.0.1]:${p}/`,
      `mongodb://[::1]:${p}/`,
      `mongodb://localhost:${p}/`,
      `mongodb://db.localhost:${p}/`,
      `mongodb://127.0.0.2:${p},127.0.0.1:${p}/?replicaSet=rs0`,
    ]) {
      await assert.rejects(connect(uri), refused(/^body\.uri points to a private network (address|host) /), uri);
    }
    assert.equal(listener.connections(), 0);
  });

  it('a Unix socket, a SOCKS5 proxy, server-side files and credential-lending mechanisms: a 400 naming what', async () => {
    const p = listener.port;
    const cases: [string, RegExp][] = [
      ['mongodb://%2Ftmp%2Fmongodb-27017.sock/', /^body\.uri names a Unix socket on the server /],
      [`mongodb://127.0.0.1:${p}/?proxyHost=127.0.0.1&proxyPort=${p}`, /^body\.uri sets proxyHost, which only the operator may set /],
      [`mongodb://127.0.0.1:${p}/?tls=true&tlsCAFile=%2Fetc%2Fpasswd`, /^body\.uri sets tlsCAFile, which only the operator may set /],
      [`mongodb://127.0.0.1:${p}/?authMechanism=MONGODB-AWS`, /^body\.uri uses authMechanism MONGODB-AWS, which lends the server's own credentials /],
      [`mongodb://127.0.0.1:${p}/?authMechanism=MONGODB-OIDC&authMechanismProperties=ENVIRONMENT:azure,TOKEN_RESOURCE:x`, /^body\.uri uses authMechanism MONGODB-OIDC/],
    ];
    for (const [uri, pattern] of cases) await assert.rejects(connect(uri), refused(pattern), uri);
    assert.equal(listener.connections(), 0);
  });

  it('a host name is checked again when the driver dials it (DNS rebinding): refused, nothing connects', async () => {
    // Past validation (as a name that resolved publicly then would be): the guard the driver dials through refuses it.
    const connection = new MongoConnection({
      url: `mongodb://localhost:${listener.port}/?serverSelectionTimeoutMS=500`, dbName: 'parley', timeoutMs: 1000, label: 'external database', guard: new DialGuard(),
    });
    await assert.rejects(connection.connect(), (err: unknown) => {
      assert.ok(err instanceof ServiceUnavailableError, String(err));
      assert.match(err.message, /localhost resolves to a private address/);
      return true;
    });
    assert.equal(listener.connections(), 0);
  });

  it('with private URLs allowed (PARLEY_ALLOW_PRIVATE_URLS=1) the driver dials the loopback host', async () => {
    await assert.rejects(connect(`mongodb://127.0.0.1:${listener.port}/?serverSelectionTimeoutMS=500`, true), (err: unknown) => err instanceof UpstreamError);
    assert.ok(listener.connections() > 0);
  });
});
