import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import { decodeStored, encodeStored } from '@parley/core';
import { uniqueId } from './storage-fixtures.js';
import { withStorage, type RecordStoreHarness } from './storage-harness.js';

/** Creds shaped like a channel library's: Buffers and Uint8Arrays nested in objects and arrays. */
function creds() {
  return {
    noiseKey: { private: Buffer.from('00ff10203040506070809a0b0c0d0e0f', 'hex'), public: new Uint8Array([0, 1, 254, 255]) },
    signedPreKey: { keyId: 7, signature: Buffer.alloc(64, 0xab), keyPair: { public: Buffer.from([]) } },
    registrationId: 4242,
    accountSettings: { unarchiveChats: false },
    history: [Buffer.from('one'), { nested: new Uint8Array([9, 8, 7]) }],
    me: { id: '5511999990000:3@s.whatsapp.net', name: 'Support' },
  };
}

/** AuthStateRepository: opaque text by category and id, atomic writes, byte-exact binary round trips. */
export function describeAuthStateCases(harness: RecordStoreHarness): void {
  describe('authState', () => {
    it('round-trips encodeStored values with nested binary byte-exact', () => withStorage(harness, async ({ authState }) => {
      const instance = uniqueId('ins');
      const value = encodeStored(creds());
      await authState.set(instance, [{ category: 'creds', id: 'creds', value }]);
      const stored = await authState.get(instance, 'creds', ['creds']);
      assert.deepEqual(stored, { creds: value });
      const decoded = decodeStored<ReturnType<typeof creds>>(stored.creds!);
      const original = creds();
      assert.ok(Buffer.isBuffer(decoded.noiseKey.private) && Buffer.isBuffer(decoded.noiseKey.public));
      assert.ok(decoded.noiseKey.private.equals(original.noiseKey.private));
      assert.ok(Buffer.from(original.noiseKey.public).equals(decoded.noiseKey.public));
      assert.ok(decoded.signedPreKey.signature.equals(original.signedPreKey.signature));
      assert.equal(decoded.signedPreKey.keyPair.public.length, 0);
      assert.ok((decoded.history[0] as Buffer).equals(Buffer.from('one')));
      assert.ok(Buffer.from([9, 8, 7]).equals((decoded.history[1] as { nested: Uint8Array }).nested));
      assert.deepEqual({ ...decoded, noiseKey: null, signedPreKey: { ...decoded.signedPreKey, signature: null, keyPair: null }, history: null }, {
        ...original, noiseKey: null, signedPreKey: { ...original.signedPreKey, signature: null, keyPair: null }, history: null,
      });
    }));

    it('get answers only existing ids of the category and instance', () => withStorage(harness, async ({ authState }) => {
      const instance = uniqueId('ins');
      await authState.set(instance, [
        { category: 'pre-key', id: '1', value: '"one"' },
        { category: 'pre-key', id: '2', value: '"two"' },
        { category: 'session', id: '1', value: '"session one"' },
      ]);
      assert.deepEqual(await authState.get(instance, 'pre-key', ['1', '2', '3']), { 1: '"one"', 2: '"two"' });
      assert.deepEqual(await authState.get(instance, 'pre-key', ['3']), {});
      assert.deepEqual(await authState.get(instance, 'pre-key', []), {});
      assert.deepEqual(await authState.get(instance, 'session', ['1', '2']), { 1: '"session one"' });
      assert.deepEqual(await authState.get(uniqueId('ins'), 'pre-key', ['1']), {});
    }));

    it('set overwrites, and a null value deletes', () => withStorage(harness, async ({ authState }) => {
      const instance = uniqueId('ins');
      await authState.set(instance, [{ category: 'pre-key', id: '1', value: 'a' }, { category: 'pre-key', id: '2', value: 'b' }]);
      await authState.set(instance, [{ category: 'pre-key', id: '1', value: null }, { category: 'pre-key', id: '2', value: 'B' }, { category: 'pre-key', id: '9', value: null }]);
      assert.deepEqual(await authState.get(instance, 'pre-key', ['1', '2', '9']), { 2: 'B' });
      await authState.set(instance, []);
      assert.deepEqual(await authState.get(instance, 'pre-key', ['2']), { 2: 'B' });
    }));

    it('set writes many entries atomically: a concurrent read sees none or all', () => withStorage(harness, async ({ authState }) => {
      const instance = uniqueId('ins');
      const ids = Array.from({ length: 500 }, (_, i) => String(i));
      const entries = ids.map((id) => ({ category: 'session', id, value: encodeStored({ id, key: Buffer.from(id) }) }));
      const [, during] = await Promise.all([authState.set(instance, entries), authState.get(instance, 'session', ids)]);
      assert.ok([0, ids.length].includes(Object.keys(during).length), `saw ${Object.keys(during).length} of ${ids.length}`);
      const after = await authState.get(instance, 'session', ids);
      assert.deepEqual(after, Object.fromEntries(entries.map((entry) => [entry.id, entry.value])));
    }));

    it('clear deletes the whole auth state of one instance', () => withStorage(harness, async ({ authState }) => {
      const a = uniqueId('ins');
      const b = uniqueId('ins');
      await authState.set(a, [{ category: 'creds', id: 'creds', value: 'a' }, { category: 'session', id: 'x', value: 'a' }]);
      await authState.set(b, [{ category: 'creds', id: 'creds', value: 'b' }]);
      await authState.clear(a);
      assert.deepEqual(await authState.get(a, 'creds', ['creds']), {});
      assert.deepEqual(await authState.get(a, 'session', ['x']), {});
      assert.deepEqual(await authState.get(b, 'creds', ['creds']), { creds: 'b' });
    }));
  });
}
