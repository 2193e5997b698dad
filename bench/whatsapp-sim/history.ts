/**
 * History sync on link: a simulated account whose phone has H messages of history (`POST
 * /accounts/{n}/history`: C chats of H / C messages; the simulator sends them as the inline bootstrap
 * and RECENT chunks) links a new WhatsApp instance. Timed from the scan to every message stored (each
 * chat's `total` from `GET /{key}/chat/{jid}/messages?limit=1`, polled); the Parley process's RSS is
 * sampled meanwhile for its peak. Memory after full GCs before the link (a primer instance without
 * history linked first, so lazily loaded code is not counted) and after each sync, once idle. S
 * accounts sync one after another in the same process: memory that one sync keeps for good shows as
 * growth from one sync to the next.
 */
import { join } from 'node:path';
import { rssMiBOf } from '../support/measure.js';
import { linkWhatsApp, scanWhatsApp, simNumber } from './fleet.js';
import { ParleyNode, simCall, startSimProcess, type Memory, type SimProcess } from './processes.js';

export interface HistorySync {
  seconds: number;
  peakRssMiB: number;
  /** Memory after full GCs once idle after this sync. */
  after: Memory;
  cpuSeconds: number;
  simPeakRssMiB: number;
}

export interface HistoryResult {
  messages: number;
  chats: number;
  before: Memory;
  /** One per account synced, one after another in the same Parley process. */
  syncs: HistorySync[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Seeds `number`'s phone, links a new instance to it and waits until every seeded message is stored. */
async function syncOnce(node: ParleyNode, sim: SimProcess, number: string, chats: number, perChat: number, idleSeconds: number): Promise<HistorySync> {
  await simCall(sim, 'POST', '/accounts', { number, pushName: 'History' });
  const seeded = await simCall<{ chats: Array<{ jid: string; messageIds: string[] }> }>(sim, 'POST', `/accounts/${number}/history`, { chats, messagesPerChat: perChat });
  const { data } = await node.call<{ data: { key: string } }>('POST', '/admin/instances', { channel: 'whatsapp' });
  const key = data.key;
  let peakRssMiB = node.rssMiB();
  let simPeakRssMiB = rssMiBOf(sim.pid);
  const sampler = setInterval(() => {
    peakRssMiB = Math.max(peakRssMiB, node.rssMiB());
    simPeakRssMiB = Math.max(simPeakRssMiB, rssMiBOf(sim.pid));
  }, 100);
  const started = performance.now();
  const cpu = node.cpuMicros();
  let seconds: number;
  try {
    await scanWhatsApp(node, sim, key, number);
    const pending = new Map(seeded.chats.map((chat) => [chat.jid, chat.messageIds.length]));
    while (pending.size > 0) {
      for (const [jid, expected] of pending) {
        const page = await node.call<{ total: number }>('GET', `/${key}/chat/${encodeURIComponent(jid)}/messages?limit=1`, undefined, key);
        if (page.total >= expected) pending.delete(jid);
      }
      if (performance.now() - started > 900_000) throw new Error(`${pending.size} chats still incomplete after 15 minutes`);
      if (pending.size > 0) await sleep(500);
    }
    seconds = (performance.now() - started) / 1000;
  } finally {
    clearInterval(sampler);
  }
  const cpuSeconds = (node.cpuMicros() - cpu) / 1e6;
  await sleep(idleSeconds * 1000);
  return { seconds, peakRssMiB, after: await node.memory(), cpuSeconds, simPeakRssMiB };
}

/** `snapshots`: a directory where the server's heap snapshots go, before the first sync and after each (none when undefined). */
export async function historyScenario(messages: number, chats: number, syncs: number, idleSeconds: number, snapshots?: string): Promise<HistoryResult> {
  const perChat = Math.ceil(messages / chats);
  const sim = await startSimProcess();
  const node = await ParleyNode.start(sim);
  try {
    await linkWhatsApp(node, sim, simNumber(7, 0));
    await sleep(idleSeconds * 1000);
    const before = await node.memory();
    if (snapshots) await node.snapshot(join(snapshots, 'history-0.heapsnapshot'));
    const results: HistorySync[] = [];
    for (let i = 1; i <= syncs; i++) {
      results.push(await syncOnce(node, sim, simNumber(7, i), chats, perChat, idleSeconds));
      if (snapshots) await node.snapshot(join(snapshots, `history-${i}.heapsnapshot`));
    }
    return { messages: chats * perChat, chats, before, syncs: results };
  } finally {
    await node.stop();
    await sim.stop();
  }
}
