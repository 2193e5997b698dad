import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { constantTimeEquals, redactLink, redactSecret, signatureHeader, verifySignature } from '../src/index.js';

describe('webhook signature', () => {
  const body = Buffer.from('{"object":"page","entry":[{"id":"1","emoji":"\\ud83d\\udc4d"}]}');

  it('signs like Meta: sha256= and the hex HMAC-SHA256 of the raw bytes under the app secret', () => {
    // Reference value from an independent HMAC implementation (Python hmac) over the same bytes.
    assert.equal(signatureHeader('hello', 'secret'), 'sha256=88aab3ede8d3adf94d26ab90d3bafd4a2083070c3bcce9c014ee04a443847c0b');
  });

  it('accepts the signature of the exact bytes, in either hex case', () => {
    const header = signatureHeader(body, 'app-secret');
    assert.equal(verifySignature(body, header, 'app-secret'), true);
    assert.equal(verifySignature(body, header.toUpperCase().replace('SHA256=', 'sha256='), 'app-secret'), true);
  });

  it('refuses another secret, other bytes, other algorithms and malformed or missing headers', () => {
    const header = signatureHeader(body, 'app-secret');
    assert.equal(verifySignature(body, header, 'other-secret'), false);
    assert.equal(verifySignature(Buffer.from(body.toString('utf8').replace('"1"', '"2"')), header, 'app-secret'), false);
    assert.equal(verifySignature(body, header.replace('sha256=', 'sha1='), 'app-secret'), false);
    assert.equal(verifySignature(body, `${header}00`, 'app-secret'), false);
    assert.equal(verifySignature(body, 'sha256=', 'app-secret'), false);
    assert.equal(verifySignature(body, undefined, 'app-secret'), false);
  });

  it('compares verify tokens in constant time regardless of length', () => {
    assert.equal(constantTimeEquals('verify-token', 'verify-token'), true);
    assert.equal(constantTimeEquals('verify-token', 'verify-toke'), false);
    assert.equal(constantTimeEquals('', 'x'), false);
  });
});

describe('redaction', () => {
  it('shows the first 4 characters of a secret, and nothing of a short one', () => {
    assert.equal(redactSecret('EAAGm0PX4ZCpsBAKZB1234567890'), 'EAAG…');
    assert.equal(redactSecret('short-token'), '…');
  });

  it('redacts the three secrets of a link and keeps the rest', () => {
    const link = {
      channel: 'instagram' as const, accountId: '17841405822304914', accessToken: 'EAAGm0PX4ZCpsBAKZB1234567890',
      appSecret: '0123456789abcdef0123456789abcdef', verifyToken: 'verify-token-instagram-1234', username: 'parley.shop', linkedAt: 1,
    };
    assert.deepStrictEqual(redactLink(link), {
      channel: 'instagram', accountId: '17841405822304914', accessToken: 'EAAG…', appSecret: '0123…', verifyToken: 'veri…',
      username: 'parley.shop', linkedAt: 1,
    });
    assert.equal(link.accessToken, 'EAAGm0PX4ZCpsBAKZB1234567890', 'the input is not changed');
  });
});
