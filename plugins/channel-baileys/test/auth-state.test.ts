import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeStored } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { addTransactionCapability, DEFAULT_CONNECTION_CONFIG, proto, type AuthenticationCreds, type SocketConfig } from '@whiskeysockets/baileys';
import { loadStorageAuthState } from '../src/auth/storage-auth-state.js';

const ID = 'ins_auth_state_test';
const silent: SocketConfig['logger'] = { level: 'silent', child: () => silent, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

async function storage(): Promise<MemoryStorage> {
  const s = new MemoryStorage();
  await s.init();
  return s;
}

/** Counts reads that reach the storage back end. */
function countReads(s: MemoryStorage): { reads: string[][] } {
  const seen = { reads: [] as string[][] };
  const get = s.authState.get.bind(s.authState);
  s.authState.get = async (instance, category, ids) => {
    seen.reads.push([category, ...ids]);
    return get(instance, category, ids);
  };
  return seen;
}

describe('auth state in the storage back end (MemoryStorage)', () => {
  it('fresh creds are saved and restored byte-exact', async () => {
    const s = await storage();
    const fresh = await loadStorageAuthState(s.authState, ID, 100);
    assert.equal(fresh.restored, false);
    fresh.state.creds.me = { id: '5511900000001:12@s.whatsapp.net', lid: '80000000000001:12@lid', name: 'Parley' };
    fresh.state.creds.registered = true;
    await fresh.saveCreds();
    const text = (await s.authState.get(ID, 'creds', ['creds'])).creds!;
    assert.match(text, /"noiseKey":\{"private":\{"type":"Buffer","data":"[A-Za-z0-9+/=]+"\}/);

    const restored = await loadStorageAuthState(s.authState, ID, 100);
    assert.equal(restored.restored, true);
    const a = restored.state.creds;
    const b = fresh.state.creds;
    assert.ok(Buffer.isBuffer(a.noiseKey.private) && Buffer.from(b.noiseKey.private).equals(a.noiseKey.private));
    assert.ok(Buffer.from(b.signedIdentityKey.public).equals(Buffer.from(a.signedIdentityKey.public)));
    assert.ok(Buffer.from(b.signedPreKey.signature).equals(Buffer.from(a.signedPreKey.signature)));
    assert.deepStrictEqual(
      [a.registrationId, a.advSecretKey, a.me, a.registered, a.nextPreKeyId, a.signedPreKey.keyId],
      [b.registrationId, b.advSecretKey, b.me, true, b.nextPreKeyId, b.signedPreKey.keyId],
    );
    assert.deepStrictEqual(decodeStored<AuthenticationCreds>(text).me, b.me);
  });

  it('signal keys round-trip by category and id; null deletes; app-state keys come back as proto', async () => {
    const s = await storage();
    const auth = await loadStorageAuthState(s.authState, ID, 100);
    const preKey = { public: Buffer.from('a1a2a3', 'hex'), private: new Uint8Array([1, 2, 3]) };
    const session = new Uint8Array([9, 8, 7, 6]);
    const syncKey = proto.Message.AppStateSyncKeyData.fromObject({ keyData: Buffer.from('key-data'), timestamp: 1_735_700_000 });
    await auth.state.keys.set({ 'pre-key': { 1: preKey, 2: preKey }, session: { '5511988887777.0': session }, 'app-state-sync-key': { AAAA: syncKey } });
    await auth.state.keys.set({ 'pre-key': { 2: null } });

    assert.deepStrictEqual(Object.keys(await s.authState.get(ID, 'pre-key', ['1', '2'])), ['1']);
    const again = await loadStorageAuthState(s.authState, ID, 100);
    const keys = await again.state.keys.get('pre-key', ['1', '2']);
    assert.deepStrictEqual(Object.keys(keys), ['1']);
    assert.ok(Buffer.from(keys['1']!.public).equals(preKey.public));
    assert.ok(Buffer.from(keys['1']!.private).equals(Buffer.from(preKey.private)));
    assert.ok(Buffer.from((await again.state.keys.get('session', ['5511988887777.0']))['5511988887777.0']!).equals(Buffer.from(session)));
    const sync = (await again.state.keys.get('app-state-sync-key', ['AAAA'])).AAAA!;
    assert.ok(sync instanceof proto.Message.AppStateSyncKeyData);
    assert.deepStrictEqual(sync.toJSON(), syncKey.toJSON());
  });

  it('reads go through a bounded LRU: hits and known misses cost no I/O, evicted keys are read again', async () => {
    const s = await storage();
    const writer = await loadStorageAuthState(s.authState, ID, 100);
    await writer.state.keys.set({ session: { a: new Uint8Array([1]), b: new Uint8Array([2]), c: new Uint8Array([3]) } });
    const seen = countReads(s);
    const auth = await loadStorageAuthState(s.authState, ID, 2);
    seen.reads.length = 0;
    await auth.state.keys.get('session', ['a', 'missing']);
    await auth.state.keys.get('session', ['a', 'missing']);
    assert.deepStrictEqual(seen.reads, [['session', 'a', 'missing']]);
    await auth.state.keys.get('session', ['b']);
    await auth.state.keys.get('session', ['c']);
    await auth.state.keys.get('session', ['a']);
    assert.deepStrictEqual(seen.reads, [['session', 'a', 'missing'], ['session', 'b'], ['session', 'c'], ['session', 'a']]);
    // Writes update the cache: a written key is read without I/O.
    await auth.state.keys.set({ session: { d: new Uint8Array([4]) } });
    assert.deepStrictEqual(Object.keys(await auth.state.keys.get('session', ['d'])), ['d']);
    assert.equal(seen.reads.length, 4);
  });

  it('clear deletes creds and every key of the instance only', async () => {
    const s = await storage();
    const auth = await loadStorageAuthState(s.authState, ID, 100);
    const other = await loadStorageAuthState(s.authState, 'ins_other', 100);
    await auth.saveCreds();
    await other.saveCreds();
    await auth.state.keys.set({ session: { a: new Uint8Array([1]) } });
    await auth.clear();
    assert.deepStrictEqual(await s.authState.get(ID, 'creds', ['creds']), {});
    assert.deepStrictEqual(await auth.state.keys.get('session', ['a']), {});
    assert.equal(Object.keys(await s.authState.get('ins_other', 'creds', ['creds'])).length, 1);
    assert.equal((await loadStorageAuthState(s.authState, ID, 100)).restored, false);
  });

  it('works under Baileys’ transaction layer and LID mapping store (keys land in storage)', async () => {
    const s = await storage();
    const auth = await loadStorageAuthState(s.authState, ID, 100);
    const keys = addTransactionCapability(auth.state.keys, silent, { maxCommitRetries: 1, delayBetweenTriesMs: 1 });
    const repository = DEFAULT_CONNECTION_CONFIG.makeSignalRepository({ creds: auth.state.creds, keys }, silent);
    await repository.lidMapping.storeLIDPNMappings([{ lid: '123456789012345@lid', pn: '5511988887777@s.whatsapp.net' }]);
    assert.deepStrictEqual(await s.authState.get(ID, 'lid-mapping', ['5511988887777', '123456789012345_reverse']), {
      5511988887777: '"123456789012345"', '123456789012345_reverse': '"5511988887777"',
    });
    const fresh = await loadStorageAuthState(s.authState, ID, 100);
    const freshKeys = addTransactionCapability(fresh.state.keys, silent, { maxCommitRetries: 1, delayBetweenTriesMs: 1 });
    const again = DEFAULT_CONNECTION_CONFIG.makeSignalRepository({ creds: fresh.state.creds, keys: freshKeys }, silent);
    assert.equal(await again.lidMapping.getPNForLID('123456789012345@lid'), '5511988887777:0@s.whatsapp.net');
  });
});
