import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UnauthorizedError } from '@parley/core';
import { AdminToken, metricsVerifier } from '../src/app/admin-token.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'parley-admin-token-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('AdminToken', () => {
  it('takes PARLEY_ADMIN_TOKEN when given, without writing a file', () => {
    const token = AdminToken.load(join(dir, 'env'), 'an-operator-chosen-token');
    assert.equal(token.value, 'an-operator-chosen-token');
    assert.deepEqual(token.source, { kind: 'env' });
    assert.equal(existsSync(join(dir, 'env')), false);
  });

  it('refuses an environment token shorter than 16 characters', () => {
    assert.throws(() => AdminToken.load(dir, 'short-token'), { message: 'PARLEY_ADMIN_TOKEN must be at least 16 characters' });
  });

  it('generates a 256-bit base64url token at first start, saved with mode 0600 in a created data directory', () => {
    const dataDir = join(dir, 'nested', 'data');
    const token = AdminToken.load(dataDir);
    const path = join(dataDir, 'admin-token');
    assert.match(token.value, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(token.value, 'base64url').length, 32);
    assert.deepEqual(token.source, { kind: 'file', path, generated: true });
    assert.equal(readFileSync(path, 'utf8'), `${token.value}\n`);
    assert.equal(statSync(path).mode & 0o777, 0o600);
  });

  it('reuses the saved token on the next start', () => {
    const dataDir = join(dir, 'reuse');
    const first = AdminToken.load(dataDir);
    const second = AdminToken.load(dataDir);
    assert.equal(second.value, first.value);
    assert.deepEqual(second.source, { kind: 'file', path: join(dataDir, 'admin-token'), generated: false });
  });

  it('reads a token an operator wrote into the file, trimming whitespace', () => {
    const dataDir = join(dir, 'written');
    AdminToken.load(dataDir);
    writeFileSync(join(dataDir, 'admin-token'), '  hand-written-token-value  \n');
    assert.equal(AdminToken.load(dataDir).value, 'hand-written-token-value');
  });

  it('verifies a Bearer header (scheme case-insensitive, surrounding spaces ignored)', () => {
    const token = AdminToken.load(dir, 'verify-me-0123456789');
    for (const header of ['Bearer verify-me-0123456789', 'bearer verify-me-0123456789', 'BEARER   verify-me-0123456789  ']) {
      assert.doesNotThrow(() => token.verify(header), header);
    }
  });

  it('answers 401 when the header is missing or not a Bearer token', () => {
    const token = AdminToken.load(dir, 'verify-me-0123456789');
    for (const header of [undefined, '', 'verify-me-0123456789', 'Basic dmVyaWZ5', 'Bearer', 'Bearer a b']) {
      assert.throws(() => token.verify(header), (err: unknown) => {
        assert.ok(err instanceof UnauthorizedError);
        assert.equal(err.status, 401);
        assert.equal(err.message, 'admin token required: Authorization: Bearer <token>');
        return true;
      }, String(header));
    }
  });

  it('answers 401 for a wrong token, including prefixes and extensions of the right one', () => {
    const token = AdminToken.load(dir, 'verify-me-0123456789');
    for (const guess of ['wrong-token-0123456789', 'verify-me-012345678', 'verify-me-01234567890', 'VERIFY-ME-0123456789']) {
      assert.throws(() => token.verify(`Bearer ${guess}`), { name: 'UnauthorizedError', message: 'invalid admin token' }, guess);
    }
  });
});

describe('metricsVerifier', () => {
  const admin = () => AdminToken.load(dir, 'the-admin-token-0123456789');

  it('accepts the admin token, and the metrics token only when one is configured', () => {
    const withToken = metricsVerifier(admin(), 'the-metrics-token-0123456789');
    withToken('Bearer the-admin-token-0123456789');
    withToken('bearer   the-metrics-token-0123456789 ');
    const adminOnly = metricsVerifier(admin());
    adminOnly('Bearer the-admin-token-0123456789');
    assert.throws(() => adminOnly('Bearer the-metrics-token-0123456789'), { name: 'UnauthorizedError', message: 'invalid metrics token' });
  });

  it('answers 401 for a missing header, another scheme, or a wrong, shortened or extended token', () => {
    const verify = metricsVerifier(admin(), 'the-metrics-token-0123456789');
    for (const header of [undefined, '', 'the-metrics-token-0123456789', 'Basic the-metrics-token-0123456789']) {
      assert.throws(() => verify(header), { name: 'UnauthorizedError', message: 'metrics token or admin token required: Authorization: Bearer <token>' }, String(header));
    }
    for (const guess of ['the-metrics-token-012345678', 'the-metrics-token-01234567890', 'THE-METRICS-TOKEN-0123456789', 'wrong']) {
      assert.throws(() => verify(`Bearer ${guess}`), { name: 'UnauthorizedError', message: 'invalid metrics token' }, guess);
    }
  });
});
