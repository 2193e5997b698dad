/**
 * bench/whatsapp-sim: Parley's WhatsApp channel on Baileys' real socket against @parley/whatsapp-sim,
 * with Parley and the simulator each in a process of its own (issue 25's benchmarks):
 * - `memory`: idle RSS and heap per linked session at each size of BENCH_SIM_SESSIONS (100,1000),
 *   beside as many sandbox instances in the same run (`memory.ts`);
 * - `inbound`: messages/s and Parley's CPU per message from simulated phones to delivered webhooks,
 *   beside the sandbox path, in interleaved rounds (`inbound.ts`);
 * - `history`: a 50,000-message history synced on link, twice (two accounts): time to all stored, peak
 *   RSS, memory after each (`history.ts`).
 * - `restored`: idle RSS and heap per session at each size of BENCH_SIM_SESSIONS, the sessions issued by
 *   the simulator and seeded into Parley's storage, then restored by a restarted node; restore time and
 *   CPU per login; the sandbox in the same run (`restored.ts`). Not in the default set.
 *
 * Run: `npm run build && node bench/dist/whatsapp-sim/whatsapp-sim.bench.js`. Environment:
 * BENCH_SIM_SCENARIOS (memory,inbound,history), BENCH_SIM_SESSIONS (100,1000), BENCH_SIM_CHANNELS (whatsapp,sandbox: the
 *   memory scenario's channels; `sandbox` alone measures idle sandbox instances only), BENCH_SIM_LINK_CONCURRENCY
 * (8 links at once), BENCH_SIM_LINK_DEADLINE_SECONDS (1800: no link starts later; the sessions linked by
 * then are measured), BENCH_SIM_IDLE_SECONDS (30: the wait before each memory reading),
 * BENCH_SIM_INSTANCES (10 pairs), BENCH_SIM_MESSAGES (1000 per round), BENCH_SIM_ROUNDS (3),
 * BENCH_SIM_SEND_CONCURRENCY (16), BENCH_SIM_HISTORY (50000 messages), BENCH_SIM_HISTORY_CHATS (100), BENCH_SIM_HISTORY_SYNCS (2 accounts,
 * one after another), BENCH_SIM_HEAP_SNAPSHOTS (a directory: the server's heap snapshots before and after
 * each sync go there), BENCH_SIM_RESTORE_PER_SECOND (restored: WhatsApp restores started per second,
 * 100), BENCH_SIM_PREKEYS (restored: one-time prekeys per issued session, 812 as a real link leaves).
 */
import { machine, percentile, table } from '../support/measure.js';
import { historyScenario } from './history.js';
import { inboundScenario, type InboundRound } from './inbound.js';
import { memoryScenario, type MemoryResult } from './memory.js';
import { restoredScenario, type RestoredResult } from './restored.js';

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const SCENARIOS = env('BENCH_SIM_SCENARIOS', 'memory,inbound,history').split(',');
const SESSIONS = env('BENCH_SIM_SESSIONS', '100,1000').split(',').map(Number);
const CHANNELS = env('BENCH_SIM_CHANNELS', 'whatsapp,sandbox').split(',') as ('whatsapp' | 'sandbox')[];
const LINK_CONCURRENCY = Number(env('BENCH_SIM_LINK_CONCURRENCY', '8'));
const LINK_DEADLINE_SECONDS = Number(env('BENCH_SIM_LINK_DEADLINE_SECONDS', '1800'));
const IDLE_SECONDS = Number(env('BENCH_SIM_IDLE_SECONDS', '30'));
const INSTANCES = Number(env('BENCH_SIM_INSTANCES', '10'));
const MESSAGES = Number(env('BENCH_SIM_MESSAGES', '1000'));
const ROUNDS = Number(env('BENCH_SIM_ROUNDS', '3'));
const SEND_CONCURRENCY = Number(env('BENCH_SIM_SEND_CONCURRENCY', '16'));
const HISTORY = Number(env('BENCH_SIM_HISTORY', '50000'));
const HISTORY_CHATS = Number(env('BENCH_SIM_HISTORY_CHATS', '100'));
const HISTORY_SYNCS = Number(env('BENCH_SIM_HISTORY_SYNCS', '2'));
const RESTORE_PER_SECOND = Number(env('BENCH_SIM_RESTORE_PER_SECOND', '100'));
const PREKEYS = Number(env('BENCH_SIM_PREKEYS', '812'));

const MiB = 1_048_576;
const mib = (bytes: number, digits = 1) => (bytes / MiB).toFixed(digits);
const median = (values: number[]) => percentile(values, 50);
const header = (what: string) => console.log(`\n### bench/whatsapp-sim ${what} — ${machine()}\n`);

if (SCENARIOS.includes('memory')) {
  const rows: (string | number)[][] = [];
  for (const sessions of SESSIONS) {
    const results: MemoryResult[] = [];
    for (const channel of CHANNELS) {
      console.error(`memory: ${sessions} ${channel} sessions`);
      results.push(await memoryScenario(channel, sessions, { concurrency: LINK_CONCURRENCY, idleSeconds: IDLE_SECONDS, deadlineSeconds: LINK_DEADLINE_SECONDS }));
    }
    const perSession = (r: MemoryResult, field: 'rss' | 'heapUsed') => (r.idle[field] - r.base[field]) / r.sessions;
    const wa = results.find((r) => r.channel === 'whatsapp');
    const sandbox = results.find((r) => r.channel === 'sandbox');
    for (const r of results) {
      rows.push([
        r.channel, r.sessions === r.wanted ? r.sessions : `${r.sessions} of ${r.wanted} (deadline)`, r.linkSeconds.toFixed(0), r.linkCpuSeconds.toFixed(0), mib(r.base.rss, 0), mib(r.idle.rss, 0),
        mib(perSession(r, 'rss'), 2), mib(perSession(r, 'heapUsed'), 2), mib(r.idle.heapUsed, 0), r.channel === 'whatsapp' ? r.simRssMiB.toFixed(0) : '',
      ]);
    }
    if (wa && sandbox) {
      rows.push([`whatsapp ÷ sandbox`, sessions, '', '', '', '', `**${(perSession(wa, 'rss') / perSession(sandbox, 'rss')).toFixed(1)}×**`,
        `**${(perSession(wa, 'heapUsed') / perSession(sandbox, 'heapUsed')).toFixed(1)}×**`, '', '']);
    }
  }
  header(`memory (${LINK_CONCURRENCY} links at once, ${IDLE_SECONDS} s idle before each reading, after full GCs)`);
  console.log(table(['channel', 'sessions', 'link all (s)', 'Parley CPU linking (s)', 'RSS before (MiB)', 'RSS idle (MiB)', 'RSS / session (MiB)',
    'heap / session (MiB)', 'heap idle (MiB)', 'simulator RSS (MiB)'], rows));
}

if (SCENARIOS.includes('inbound')) {
  const rounds = await inboundScenario({ instances: INSTANCES, messages: MESSAGES, rounds: ROUNDS, concurrency: SEND_CONCURRENCY });
  const of = (path: InboundRound['path']) => rounds.filter((r) => r.path === path);
  const byRound = (round: number, path: InboundRound['path']) => rounds.find((r) => r.round === round && r.path === path)!;
  const ratios = Array.from({ length: ROUNDS }, (_, i) => i + 1).map((round) => ({
    rate: (byRound(round, 'whatsapp').messages / byRound(round, 'whatsapp').seconds) / (byRound(round, 'sandbox').messages / byRound(round, 'sandbox').seconds),
    cpu: byRound(round, 'whatsapp').cpuMicrosPerMessage / byRound(round, 'sandbox').cpuMicrosPerMessage,
  }));
  const rows = (['whatsapp', 'sandbox'] as const).map((path) => [
    path, of(path).map((r) => (r.messages / r.seconds).toFixed(0)).join(' / '), median(of(path).map((r) => r.messages / r.seconds)).toFixed(0),
    of(path).map((r) => r.cpuMicrosPerMessage.toFixed(0)).join(' / '), median(of(path).map((r) => r.cpuMicrosPerMessage)).toFixed(0),
  ]);
  rows.push(['whatsapp ÷ sandbox (median of per-round ratios)', '', `**${median(ratios.map((r) => r.rate)).toFixed(2)}×**`, '', `**${median(ratios.map((r) => r.cpu)).toFixed(2)}×**`]);
  header(`inbound (${INSTANCES} instances, ${MESSAGES} messages per round, ${SEND_CONCURRENCY} sends in flight)`);
  console.log(table(['path', 'messages/s per round', 'messages/s (median)', 'Parley CPU µs / message per round', 'CPU µs / message (median)'], rows));
}

if (SCENARIOS.includes('history')) {
  const r = await historyScenario(HISTORY, HISTORY_CHATS, HISTORY_SYNCS, IDLE_SECONDS, process.env.BENCH_SIM_HEAP_SNAPSHOTS);
  header(`history (${r.messages} messages in ${r.chats} chats per account, synced on link; before: RSS ${mib(r.before.rss, 0)} MiB, heap ${mib(r.before.heapUsed, 0)} MiB)`);
  console.log(table(['sync', 'link to all stored (s)', 'messages/s', 'Parley CPU (s)', 'peak RSS (MiB)', 'RSS after (MiB)', 'RSS after − before (MiB)',
    'heap after (MiB)', 'heap after − before (MiB)', 'simulator peak RSS (MiB)'], r.syncs.map((s, i) => [
    i + 1, s.seconds.toFixed(1), (r.messages / s.seconds).toFixed(0), s.cpuSeconds.toFixed(1), s.peakRssMiB.toFixed(0), mib(s.after.rss, 0),
    mib(s.after.rss - r.before.rss, 0), mib(s.after.heapUsed, 0), mib(s.after.heapUsed - r.before.heapUsed, 1), s.simPeakRssMiB.toFixed(0),
  ])));
}

if (SCENARIOS.includes('restored')) {
  const results: RestoredResult[] = [];
  for (const sessions of SESSIONS) {
    for (const channel of CHANNELS) {
      console.error(`restored: ${sessions} ${channel} sessions`);
      results.push(await restoredScenario(channel, sessions, { idleSeconds: IDLE_SECONDS, perSecond: RESTORE_PER_SECOND, preKeys: PREKEYS }));
    }
  }
  const per = (r: RestoredResult, field: 'rss' | 'heapUsed') => (r.idle[field] - r.base[field]) / r.sessions;
  const rows: (string | number)[][] = results.map((r) => [
    r.channel, r.sessions, r.setupSeconds.toFixed(0), r.restoreSeconds.toFixed(1), ((r.loginCpuSeconds / r.sessions) * 1000).toFixed(1), `${r.load[0]} → ${r.load[1]}`,
    mib(r.base.rss, 0), mib(r.idle.rss, 0), mib(per(r, 'rss'), 3), mib(per(r, 'heapUsed'), 3), mib(r.idle.heapUsed, 0), r.channel === 'whatsapp' ? r.simRssMiB.toFixed(0) : '',
  ]);
  for (const sessions of SESSIONS) {
    const wa = results.find((r) => r.channel === 'whatsapp' && r.sessions === sessions)!;
    const sandbox = results.find((r) => r.channel === 'sandbox' && r.sessions === sessions)!;
    // No CPU ratio: a sandbox restore costs less than the two processes' start-up CPU differs by (it comes out near 0, either sign).
    rows.push(['whatsapp ÷ sandbox', sessions, '', '', '', '', '', '',
      `**${(per(wa, 'rss') / per(sandbox, 'rss')).toFixed(1)}×**`, `**${(per(wa, 'heapUsed') / per(sandbox, 'heapUsed')).toFixed(1)}×**`, '', '']);
  }
  // Between two sizes, per added session: the same method at both ends, so what the two processes share cancels out.
  for (const channel of ['whatsapp', 'sandbox'] as const) {
    const [small, large] = [SESSIONS[0], SESSIONS[SESSIONS.length - 1]].map((n) => results.find((r) => r.channel === channel && r.sessions === n)!);
    if (!small || !large || small === large) continue;
    const added = (field: 'rss' | 'heapUsed') => mib((large.idle[field] - small.idle[field]) / (large.sessions - small.sessions), 3);
    rows.push([`${channel}, ${small.sessions} → ${large.sessions} (per added session)`, large.sessions - small.sessions, '', '', '', '', mib(small.idle.rss, 0), mib(large.idle.rss, 0), added('rss'), added('heapUsed'), '', '']);
  }
  header(`restored (sessions issued by the simulator and seeded into storage; restore at ${RESTORE_PER_SECOND}/s; ${IDLE_SECONDS} s idle before each reading, after full GCs)`);
  console.log(table(['channel', 'sessions', 'set up (s)', 'restore all (s)', 'Parley CPU / login (ms)', 'load 1 min', 'RSS base (MiB)', 'RSS idle (MiB)',
    'RSS / session (MiB)', 'heap / session (MiB)', 'heap idle (MiB)', 'simulator RSS (MiB)'], rows));
}
