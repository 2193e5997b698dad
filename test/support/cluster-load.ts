import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { deleteKeys } from '@parley/storage-redis/testing';
import type { NodeProcess } from '@parley/testkit/host';

/** A sandbox instance of a cluster test. */
export interface Instance {
  id: string;
  key: string;
  number: string;
}

/** What a steady send load saw. */
export interface LoadResults {
  /** Message ids of the sends answered 2xx, by sending instance. */
  accepted: Map<string, string[]>;
  /** Every non-2xx answer or failed request, described. */
  failures: string[];
  ok: number;
}

/**
 * Steady send load: one worker per instance sends a text to the next instance's number, through the
 * given nodes in turn, until stopped. Records accepted message ids, failures, and when each instance
 * was last served.
 */
export function clusterLoad(instances: Instance[], via: NodeProcess[]) {
  let running = true;
  const accepted = new Map<string, string[]>();
  const failures: string[] = [];
  const servedAt = new Map<string, { started: number; answered: number }[]>();
  let ok = 0;
  const peerOf = (instance: Instance) => instances[(instances.indexOf(instance) + 1) % instances.length]!;
  const worker = async (instance: Instance, offset: number) => {
    for (let i = offset; running; i++) {
      const started = performance.now();
      try {
        const res = await via[i % via.length]!.request('POST', `/${instance.key}/message/text`, { to: peerOf(instance).number, text: `load ${i}` });
        if (res.status === 200) {
          ok++;
          (accepted.get(instance.id) ?? accepted.set(instance.id, []).get(instance.id)!).push(res.body.data.key.id as string);
          (servedAt.get(instance.id) ?? servedAt.set(instance.id, []).get(instance.id)!).push({ started, answered: performance.now() });
        } else {
          failures.push(`${instance.id} via ${via[i % via.length]!.id}: ${res.status} ${JSON.stringify(res.body)}`);
        }
      } catch (err) {
        failures.push(`${instance.id} via ${via[i % via.length]!.id}: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const workers = instances.map((instance, n) => worker(instance, n));
  return {
    peerOf,
    /** Resolves with, per instance, how long after `since` a request started after it was answered 2xx (rejects after `timeoutMs`). */
    async untilEachServedAfter(targets: Instance[], since: number, timeoutMs: number): Promise<Map<string, number>> {
      const until = performance.now() + timeoutMs;
      for (;;) {
        const out = new Map<string, number>();
        for (const t of targets) {
          const first = (servedAt.get(t.id) ?? []).find((s) => s.started >= since);
          if (first) out.set(t.id, first.answered - since);
        }
        if (out.size === targets.length) return out;
        if (performance.now() > until) throw new Error(`not every instance was served again within ${timeoutMs} ms: ${JSON.stringify([...out])}; failures: ${failures.slice(-3).join('; ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop(): Promise<LoadResults> {
      running = false;
      await Promise.all(workers);
      return { accepted, failures, ok };
    },
  };
}

/** Ids of the messages stored in an instance's chat with `number` (every page). */
export async function storedMessageIds(node: NodeProcess, key: string, number: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let page = 1; ; page++) {
    const res = await node.request('GET', `/${key}/chat/${encodeURIComponent(`${number}@s.whatsapp.net`)}/messages?limit=100&page=${page}`);
    if (res.status !== 200) throw new Error(`listing messages answered ${res.status}: ${JSON.stringify(res.body)}`);
    for (const m of res.body.data as { key: { id: string } }[]) ids.add(m.key.id);
    if (page * 100 >= res.body.total) return ids;
  }
}

/**
 * Waits (bounded) until every send of `accepted` is stored at both ends: in its sender's chat with its
 * peer, and in the peer's chat with the sender (it reached the receiving phone). An accepted send may
 * still be in the outbound queue (answered with its `queue` state, docs/queue.md): it is stored once
 * its instance's owner sends it. Fails naming the first send still missing.
 */
export async function untilAllStored(
  node: NodeProcess, instances: Instance[], accepted: Map<string, string[]>, peerOf: (i: Instance) => Instance, timeoutMs = 30_000,
): Promise<void> {
  const end = performance.now() + timeoutMs;
  for (const instance of instances) {
    const want = accepted.get(instance.id) ?? [];
    for (const [side, chat, where] of [[instance, peerOf(instance), 'stored'], [peerOf(instance), instance, 'received by its peer']] as const) {
      for (;;) {
        const stored = await storedMessageIds(node, side.key, chat.number);
        const missing = want.find((id) => !stored.has(id));
        if (missing === undefined) break;
        if (performance.now() > end) assert.fail(`accepted send ${missing} of ${instance.id} is not ${where} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
}

/**
 * Polls `check` every 100 ms until it holds (fails the test after `timeoutMs`). A check that throws
 * (storage still reconnecting after an outage) counts as not holding yet; the last error is reported.
 */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  let last: unknown;
  while (performance.now() < end) {
    try {
      if (await check()) return;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting until ${what}${last ? ` (last check failed: ${(last as Error).message})` : ''}`);
}

/**
 * Creates `count` sandbox instances through `create` (numbers `<prefix>00`, `<prefix>01`…), then
 * connects and scans each through the nodes of `via` in turn (the requests reach the owner).
 */
export async function createSandboxInstances(create: NodeProcess, via: NodeProcess[], count: number, prefix: string, webhookUrl?: string): Promise<Instance[]> {
  const out: Instance[] = [];
  for (let i = 0; i < count; i++) {
    const number = `${prefix}${String(i).padStart(2, '0')}`;
    const created = await create.request('POST', '/admin/instances', {
      channel: 'sandbox', name: `c${i}`, options: { number },
      ...(webhookUrl ? { webhook: { allowWebhook: true, webhookFormat: 'native', webhookMessage: webhookUrl } } : {}),
    }, {}, true);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const { id, key } = created.body.data as { id: string; key: string };
    assert.equal((await via[(i + 1) % via.length]!.request('POST', `/${key}/instance`)).status, 200);
    assert.equal((await via[(i + 2) % via.length]!.request('POST', `/sandbox/${key}/scan`)).status, 200);
    out.push({ id, key, number });
  }
  return out;
}

/** What a cluster test leaves behind: its nodes, what it opened beside them, its Redis keys and its directory. */
export interface ClusterTestState {
  nodes: Iterable<NodeProcess>;
  /** Closed in order after the nodes are killed (receivers, mock servers, the test's own storage client or ClusterBackend). */
  closers: ({ close(): Promise<unknown> } | undefined)[];
  /** With {@link keyPrefix}: the Redis whose keys under the prefix are deleted (a ClusterBackend among the closers deletes its own). */
  redisUrl?: string;
  keyPrefix?: string;
  /** The nodes' data directories and logs (`<dir>/<node>/node.log`). */
  dir: string;
}

/**
 * Ends a cluster test: kills its nodes (SIGKILL), closes what it opened, deletes its keys and removes its
 * directory — kept, and named on stdout, with PARLEY_KEEP_CLUSTER_LOGS=1 for a look after a failure.
 */
export async function tearDownCluster(state: ClusterTestState): Promise<void> {
  await Promise.all([...state.nodes].map((n) => n.stop('SIGKILL')));
  for (const closer of state.closers) await closer?.close();
  if (state.redisUrl && state.keyPrefix) await deleteKeys(state.redisUrl, state.keyPrefix);
  if (process.env.PARLEY_KEEP_CLUSTER_LOGS) console.log(`cluster test logs kept in ${state.dir}`);
  else rmSync(state.dir, { recursive: true, force: true });
}
