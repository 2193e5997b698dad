import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { StateRepository } from '@parley/core';
import { DedupWindow } from '../src/index.js';

/** A Map-backed StateRepository: enough to observe which namespaces the window keeps. */
class MapState implements StateRepository {
  readonly namespaces = new Map<string, Map<string, unknown>>();
  async get<T>(namespace: string, id: string): Promise<T | null> {
    return (this.namespaces.get(namespace)?.get(id) as T | undefined) ?? null;
  }
  async put(namespace: string, id: string, value: unknown): Promise<void> {
    if (!this.namespaces.has(namespace)) this.namespaces.set(namespace, new Map());
    this.namespaces.get(namespace)!.set(id, value);
  }
  async delete(namespace: string, id: string): Promise<boolean> {
    return this.namespaces.get(namespace)?.delete(id) ?? false;
  }
  async list<T>(namespace: string): Promise<{ id: string; value: T }[]> {
    return [...(this.namespaces.get(namespace) ?? new Map()).entries()].map(([id, value]) => ({ id, value: value as T }));
  }
  async clearPrefix(prefix: string): Promise<void> {
    for (const name of [...this.namespaces.keys()]) if (name.startsWith(prefix)) this.namespaces.delete(name);
  }
}

const HOUR = 3600_000;

describe('DedupWindow', () => {
  it('accepts a key once, refuses it while in flight and after commit, and accepts it again after abort', async () => {
    const state = new MapState();
    const window = new DedupWindow(state, 'meta:instagram:ins_1:dedup', HOUR, () => 10 * HOUR);
    assert.equal(await window.begin('m_1'), true);
    assert.equal(await window.begin('m_1'), false, 'in flight');
    await window.commit('m_1');
    assert.equal(await window.begin('m_1'), false, 'committed');
    assert.equal(await window.begin('m_2'), true);
    window.abort('m_2');
    assert.equal(await window.begin('m_2'), true, 'aborted keys are accepted again');
  });

  it('remembers a key for at least one window and forgets buckets older than two', async () => {
    const state = new MapState();
    let now = 10 * HOUR + 1;
    const window = new DedupWindow(state, 'base', HOUR, () => now);
    assert.equal(await window.begin('m_old'), true);
    await window.commit('m_old');
    now = 11 * HOUR + HOUR - 1;
    assert.equal(await window.begin('m_old'), false, 'still inside the previous bucket');
    now = 12 * HOUR;
    assert.equal(await window.begin('m_new'), true);
    await window.commit('m_new');
    assert.equal(await window.begin('m_old'), true, 'two buckets later the key is forgotten');
    window.abort('m_old');
    assert.deepStrictEqual([...state.namespaces.keys()].sort(), ['base', 'base:000000000012']);
    assert.deepStrictEqual(await state.get('base', 'buckets'), [11, 12]);
  });

  it('prunes buckets left behind by downtime through its index', async () => {
    const state = new MapState();
    let now = 5 * HOUR;
    const first = new DedupWindow(state, 'base', HOUR, () => now);
    assert.equal(await first.begin('a'), true);
    await first.commit('a');
    now = 50 * HOUR;
    const restarted = new DedupWindow(state, 'base', HOUR, () => now);
    assert.equal(await restarted.begin('a'), true);
    restarted.abort('a');
    assert.deepStrictEqual([...state.namespaces.keys()], ['base']);
  });
});
