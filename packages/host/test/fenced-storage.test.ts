import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FencedOffError, STORAGE_KEYS, unfencedStorage, type Fence, type Storage } from '@parley/core';
import { fencedStorage } from '../src/fenced-storage.js';

/** A storage whose auth-state and state writes record the fence they got; other repositories are tagged objects. */
function recordingStorage(writes: unknown[]): Storage {
  const storage: Record<string, unknown> = { name: 'fake', init: async () => writes.push('init'), health: async () => ({ ready: true }), flush: async () => undefined, close: async () => undefined };
  for (const key of STORAGE_KEYS) storage[key] = { key };
  storage.authState = {
    get: async () => ({}),
    set: async (id: string, _entries: unknown, fence?: Fence) => void writes.push(['auth.set', id, fence ?? null]),
    clear: async (id: string, fence?: Fence) => void writes.push(['auth.clear', id, fence ?? null]),
  };
  storage.state = {
    get: async () => null, list: async () => [],
    put: async (ns: string, id: string, _value: unknown, fence?: Fence) => void writes.push(['state.put', ns, id, fence ?? null]),
    delete: async (ns: string, id: string, fence?: Fence) => void writes.push(['state.delete', ns, id, fence ?? null]),
    clearPrefix: async (prefix: string, fence?: Fence) => void writes.push(['state.clearPrefix', prefix, fence ?? null]),
  };
  return storage as unknown as Storage;
}

describe('fencedStorage', () => {
  const FENCE = { token: 7 } as unknown as Fence;

  it('fences the instance\'s auth state and own namespaces, and nothing else', async () => {
    const writes: unknown[] = [];
    const base = recordingStorage(writes);
    const view = fencedStorage(base, 'ins1', () => FENCE);
    await view.authState.set('ins1', []);
    await view.authState.set('ins2', []);
    await view.authState.clear('ins1');
    await view.state.put('ins1:sandbox', 'a', 1);
    await view.state.put('network', 'a', 1);
    await view.state.delete('baileys.ins1.stories', 'b');
    await view.state.clearPrefix('ins1:');
    assert.deepEqual(writes, [
      ['auth.set', 'ins1', FENCE], ['auth.set', 'ins2', null], ['auth.clear', 'ins1', FENCE],
      ['state.put', 'ins1:sandbox', 'a', FENCE], ['state.put', 'network', 'a', null], ['state.delete', 'baileys.ins1.stories', 'b', FENCE],
      ['state.clearPrefix', 'ins1:', FENCE],
    ]);
  });

  it('refuses the instance\'s writes once the lease is lost', async () => {
    const view = fencedStorage(recordingStorage([]), 'ins1', () => undefined);
    await assert.rejects(view.authState.set('ins1', []), FencedOffError);
    await assert.rejects(view.state.put('ins1:sandbox', 'a', 1), FencedOffError);
  });

  it('keeps every other repository and the lifecycle of the base, and unfencedStorage answers the base', async () => {
    const writes: unknown[] = [];
    const base = recordingStorage(writes);
    const view = fencedStorage(base, 'ins1', () => FENCE);
    for (const key of STORAGE_KEYS.filter((k) => k !== 'authState' && k !== 'state')) assert.equal(view[key], base[key], key);
    assert.equal(view.name, 'fake');
    await view.init();
    assert.deepEqual(writes, ['init']);
    assert.equal(unfencedStorage(view), base);
    assert.equal(unfencedStorage(base), base);
  });
});
