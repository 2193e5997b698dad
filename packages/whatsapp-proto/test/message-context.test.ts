import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { messageContextInfo } from '../src/message-context.js';

const secretOf = (info: Record<string, unknown> | undefined) => Buffer.from(String(info!.messageSecret), 'base64');

describe('messageContextInfo', () => {
  it('gives every message its own 32-byte secret, across draws from the OS', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1_000; i++) {
      const secret = secretOf(messageContextInfo({ type: 'text', text: 'hi' }));
      assert.equal(secret.length, 32);
      seen.add(secret.toString('hex'));
    }
    assert.equal(seen.size, 1_000);
  });

  it('uses a given secret, and none for reactions', () => {
    assert.deepEqual(secretOf(messageContextInfo({ type: 'text', text: 'hi' }, Buffer.alloc(32, 7))), Buffer.alloc(32, 7));
    assert.equal(messageContextInfo({ type: 'reaction', emoji: '👍', target: { remoteJid: 'x@s.whatsapp.net', fromMe: false, id: 'x' } }), undefined);
  });
});
