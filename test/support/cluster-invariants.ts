import assert from 'node:assert/strict';
import { sandboxLinks, type SandboxLink } from '@parley/channel-sandbox';
import type { Storage } from '@parley/core';
import type { HttpReceiver } from '@parley/testkit';
import type { NodeProcess } from '@parley/testkit/host';
import type { Instance } from './cluster-load.js';

/** A native webhook body as the receiver got it. */
interface Delivered {
  id: string;
  type: string;
  instance: string;
  data: any;
}

/** The receiver's webhook deliveries, de-duplicated by event id (a retried delivery repeats its id). */
export function deliveredEvents(receiver: HttpReceiver): Map<string, Delivered> {
  return new Map(receiver.requests.map((r) => r.json as Delivered).filter((e) => e?.id).map((e) => [e.id, e]));
}

/** What a send's lifecycle must have produced at the webhook, described, for every event still missing. */
function missingLifecycle(events: Delivered[], instances: Instance[], accepted: Map<string, string[]>, peerOf: (i: Instance) => Instance): string[] {
  const seen = new Set<string>();
  for (const e of events) {
    if (e.type === 'message') seen.add(`${e.instance} message ${e.data.message.id}`);
    else if (e.type === 'message.status') seen.add(`${e.instance} ${e.data.status} ${e.data.messageId}`);
  }
  const missing: string[] = [];
  for (const instance of instances) {
    for (const id of accepted.get(instance.id) ?? []) {
      // The sender's own echo, `sent` and `delivered`; the peer's received message.
      for (const want of [`${instance.id} message ${id}`, `${instance.id} sent ${id}`, `${instance.id} delivered ${id}`, `${peerOf(instance).id} message ${id}`]) {
        if (!seen.has(want)) missing.push(want);
      }
    }
  }
  return missing;
}

/** Ids of the events the shared event log holds for `instances`, received at or after `since` (Unix ms). */
async function loggedEventIds(storage: Storage, instances: Instance[], since: number): Promise<string[]> {
  const ids: string[] = [];
  for (const instance of instances) {
    for (let after: string | undefined; ;) {
      const page = await storage.events.read({ instance: instance.id, after, limit: 1000 });
      ids.push(...page.filter((e) => e.at >= since).map((e) => e.id));
      if (page.length < 1000) break;
      after = page.at(-1)!.id;
    }
  }
  return ids;
}

/**
 * Waits (bounded) until no webhook event is lost: every event the shared event log holds for the
 * instances since `since` reached the receiver (by id), and every accepted send's lifecycle — the
 * sender's echo, `sent` and `delivered` statuses, the peer's received message — arrived. Fails
 * naming what is still missing.
 */
export async function untilNoEventLost(
  receiver: HttpReceiver, storage: Storage, instances: Instance[], accepted: Map<string, string[]>, peerOf: (i: Instance) => Instance,
  since: number, timeoutMs = 30_000,
): Promise<void> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const delivered = deliveredEvents(receiver);
    const unlogged = (await loggedEventIds(storage, instances, since)).filter((id) => !delivered.has(id));
    const missing = [...unlogged.map((id) => `logged event ${id}`), ...missingLifecycle([...delivered.values()], instances, accepted, peerOf)];
    if (missing.length === 0) return;
    if (performance.now() > end) assert.fail(`${missing.length} webhook events never arrived within ${timeoutMs} ms, first: ${missing.slice(0, 5).join('; ')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A process of the test that is gone: its pid and when it was seen dead (Unix ms). Links it left open ended then. */
export interface Death {
  pid: number;
  at: number;
}

/**
 * Asserts from the sandbox's own record of links that no phone ever had two live connections at
 * once: per number, the links (opened before the phone went online, closed after it went offline)
 * never overlap. A link left open belongs to a live node (it ends now) or to a killed process (it
 * ended at its death); one left open by any other process fails. Answers the links, by number.
 */
export async function assertOneLinkAtATime(storage: Storage, numbers: string[], live: NodeProcess[], deaths: Death[]): Promise<Map<string, SandboxLink[]>> {
  const livePids = new Set(live.map((n) => n.child.pid));
  const out = new Map<string, SandboxLink[]>();
  const now = Date.now();
  for (const number of numbers) {
    const links = await sandboxLinks(storage, number);
    out.set(number, links);
    const spans = links.map((l) => {
      const death = deaths.find((d) => d.pid === l.pid);
      if (l.closedAt !== undefined) return { ...l, end: l.closedAt };
      assert.ok(death || livePids.has(l.pid), `${number}: a link of process ${l.pid} (not killed, not running) was never closed`);
      return { ...l, end: death?.at ?? now };
    }).sort((a, b) => a.openedAt - b.openedAt);
    for (let i = 1; i < spans.length; i++) {
      const [before, next] = [spans[i - 1]!, spans[i]!];
      const who = (pid: number) => `pid ${pid} (${live.find((n) => n.child.pid === pid)?.id ?? 'not running'})`;
      assert.ok(next.openedAt >= before.end,
        `${number} had two live connections: ${who(before.pid)} ${before.openedAt}-${before.end} and ${who(next.pid)} from ${next.openedAt}`);
    }
  }
  return out;
}

/** How `GET /admin/cluster` listed one node over time: its entries while listed, and when it was first no longer listed. */
export interface NodeListing {
  seen: { at: number; alive: boolean; lastHeartbeat: number }[];
  goneAt?: number;
}

/**
 * Polls `GET /admin/cluster` through `via` every 200 ms (real HTTP) until node `id` is no longer
 * listed or `timeoutMs` passed, recording how it was listed.
 */
export async function watchNodeListing(via: NodeProcess, id: string, timeoutMs: number): Promise<NodeListing> {
  const listing: NodeListing = { seen: [] };
  const end = performance.now() + timeoutMs;
  while (performance.now() < end) {
    const res = await via.request('GET', '/admin/cluster', undefined, {}, true);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const entry = (res.body.data.nodes as { id: string; alive: boolean; lastHeartbeat: number }[]).find((n) => n.id === id);
    if (!entry) {
      listing.goneAt = Date.now();
      break;
    }
    listing.seen.push({ at: Date.now(), alive: entry.alive, lastHeartbeat: entry.lastHeartbeat });
    await new Promise((r) => setTimeout(r, 200));
  }
  return listing;
}

/** A log line's time as Unix ms (the nodes log ISO strings or epoch numbers). */
function loggedAt(line: Record<string, any>): number {
  return typeof line.time === 'number' ? line.time : Date.parse(line.time as string);
}

/**
 * Asserts from the nodes' logs that no instance had two owners at once, by fencing tokens: the takes
 * of each instance, in the order they happened on any node, have strictly increasing tokens, and every
 * lease a node stopped at its deadline (renewals unanswered) was stopped there before the next token
 * of that instance was taken anywhere. Answers how many such deadline stops were checked.
 */
export function assertDeadlineStopsBeforeTakes(nodes: NodeProcess[], instances: string[]): number {
  const takes = nodes.flatMap((n) => n.logs('instance lease taken').map((l) => ({ node: n.id, instance: l.instance as string, token: l.fencingToken as number, at: loggedAt(l) })));
  const stops = nodes.flatMap((n) => n.logs('lease could not be renewed in time; instance stopped on this node')
    .map((l) => ({ node: n.id, instance: l.instance as string, token: l.fencingToken as number, at: loggedAt(l) })));
  for (const instance of instances) {
    const mine = takes.filter((t) => t.instance === instance).sort((a, b) => a.at - b.at);
    for (let i = 1; i < mine.length; i++) {
      assert.ok(mine[i]!.token > mine[i - 1]!.token, `${instance}: tokens of successive takes increase: ${mine.map((t) => `${t.node}:${t.token}`).join(', ')}`);
    }
  }
  const checked = stops.filter((s) => instances.includes(s.instance));
  for (const stop of checked) {
    const next = takes.filter((t) => t.instance === stop.instance && t.token > stop.token).sort((a, b) => a.token - b.token)[0];
    if (next) {
      assert.ok(next.at >= stop.at, `${stop.instance}: ${stop.node} stopped token ${stop.token} at ${new Date(stop.at).toISOString()}, `
        + `${next.at - stop.at} ms after ${next.node} took token ${next.token} (two owners at once)`);
    }
  }
  return checked.length;
}
