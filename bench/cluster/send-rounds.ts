/**
 * bench/cluster, phase 1: sends straight to an instance's owner vs through a node that forwards them,
 * in interleaved rounds of the same run, with the CPU each process spent per send.
 */
import { connect } from 'node:net';
import type { NodeProcess } from '@parley/testkit/host';
import { cpuMicrosOf, percentile, table } from '../support/measure.js';
import { queueDrained, sendLoad } from '../support/send-load.js';

/** What one round came to: sends answered 2xx per second, completed per second, and CPU per answered send by process. */
export interface Round { accepted: number; completed: number; cpu: Map<string, number> }

/** How the rounds are driven. */
export interface RoundOptions {
  connections: number;
  seconds: number;
  rounds: number;
  /** The Redis server's process id, when its CPU can be read here ({@link redisPid}). */
  redis: number | undefined;
  /** False when the nodes run without the outbound queue: an answered send is a completed one, nothing drains. */
  queued: boolean;
  /** The node owning the sending instance now: checked after every round (a round through the wrong node would measure nothing). */
  ownerNow: () => Promise<string>;
}

/** Sends through each path before the rounds, unmeasured, so no round pays for a cold process (JIT, connections). */
const WARM_UP_SENDS = 2000;

/** The Redis server's process id (`INFO server`), to count its CPU; undefined when it is not on this machine's /proc. */
export async function redisPid(url: string): Promise<number | undefined> {
  const { hostname, port } = new URL(url);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port || 6379), hostname, () => socket.write('INFO server\r\n'));
    let got = '';
    socket.on('data', (chunk) => {
      got += chunk.toString('utf8');
      const head = /^\$(\d+)\r\n/.exec(got);
      if (head && Buffer.byteLength(got) >= head[0].length + Number(head[1]) + 2) socket.end(() => resolve(got));
    });
    socket.on('error', reject);
  });
  const pid = Number(/process_id:(\d+)/.exec(text)?.[1]);
  try {
    cpuMicrosOf(pid);
    return pid;
  } catch {
    return undefined;
  }
}

/** CPU used so far by each process worth counting: the nodes, the Redis server, and this process (autocannon). */
function cpuNow(nodes: Map<string, NodeProcess>, redis: number | undefined): Map<string, number> {
  const cpu = new Map([...nodes].map(([id, node]) => [id, cpuMicrosOf(node.child.pid!)]));
  if (redis !== undefined) cpu.set('redis', cpuMicrosOf(redis));
  const own = process.cpuUsage();
  cpu.set('autocannon', own.user + own.system);
  return cpu;
}

/**
 * One round of sends from `key` through `via`: answered 2xx per second, and completed per second (once
 * the owner's queue drained, when there is one). CPU is counted over the load itself, not the drain.
 */
async function sendRound(nodes: Map<string, NodeProcess>, via: NodeProcess, key: string, to: string[], options: RoundOptions): Promise<Round> {
  const started = performance.now();
  const before = cpuNow(nodes, options.redis);
  const result = await sendLoad(via.url, key, to, { connections: options.connections, seconds: options.seconds });
  const after = cpuNow(nodes, options.redis);
  if (result.non2xx > 0 || result.errors > 0) console.warn(`${via.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  if (options.queued) await queueDrained(via.url, key);
  const answered = result['2xx'];
  const cpu = new Map([...after].map(([name, used]) => [name, (used - before.get(name)!) / answered]));
  return { accepted: answered / options.seconds, completed: answered / ((performance.now() - started) / 1000), cpu };
}

/**
 * Interleaved rounds straight to `owner` and through `forwarder`; prints the per-round table and the
 * CPU per send of each process, and answers the median forwarded / direct ratio of sends completed.
 */
export async function sendRounds(
  nodes: Map<string, NodeProcess>, owner: string, forwarder: string, key: string, to: string[], options: RoundOptions,
): Promise<number> {
  for (const via of [nodes.get(owner)!, nodes.get(forwarder)!]) {
    await sendLoad(via.url, key, to, { connections: options.connections, amount: WARM_UP_SENDS });
    if (options.queued) await queueDrained(via.url, key);
  }
  const direct: Round[] = [];
  const forwarded: Round[] = [];
  for (let round = 0; round < options.rounds; round++) {
    direct.push(await sendRound(nodes, nodes.get(owner)!, key, to, options));
    forwarded.push(await sendRound(nodes, nodes.get(forwarder)!, key, to, options));
    const now = await options.ownerNow();
    if (now !== owner) throw new Error(`the sending instance moved from ${owner} to ${now} during round ${round + 1}`);
  }
  const ratio = (pick: (r: Round) => number) => direct.map((d, i) => pick(forwarded[i]!) / pick(d));
  const accepted = ratio((r) => r.accepted);
  const completed = ratio((r) => r.completed);
  const mode = options.queued ? 'outbound queue on (the default)' : 'outbound queue off: each answer is a completed send';
  console.log(`\n## Sends, ${mode}: straight to the owner vs forwarded (${options.connections} connections, ${to.length} recipients, ${options.rounds} × ${options.seconds} s rounds, interleaved)\n`);
  if (options.queued) {
    console.log(table(['round', 'direct 2xx/s', 'forwarded 2xx/s', 'forwarded / direct', 'direct sent/s end to end', 'forwarded sent/s end to end', 'forwarded / direct (end to end)'],
      direct.map((d, i) => [
        i + 1, Math.round(d.accepted), Math.round(forwarded[i]!.accepted), accepted[i]!.toFixed(2),
        Math.round(d.completed), Math.round(forwarded[i]!.completed), completed[i]!.toFixed(2),
      ])));
    console.log(`median forwarded / direct: ${percentile(accepted, 50).toFixed(2)} answered, ${percentile(completed, 50).toFixed(2)} end to end`);
  } else {
    console.log(table(['round', 'direct sent/s', 'forwarded sent/s', 'forwarded / direct'],
      direct.map((d, i) => [i + 1, Math.round(d.accepted), Math.round(forwarded[i]!.accepted), accepted[i]!.toFixed(2)])));
    console.log(`median forwarded / direct: ${percentile(accepted, 50).toFixed(2)}`);
  }
  const role = (id: string) => (id === owner ? `${id} (owner)` : id === forwarder ? `${id} (forwarder)` : id);
  const processes = [...direct[0]!.cpu.keys()];
  console.log(`\nCPU per answered send while the load ran (µs, median of ${options.rounds} rounds):\n`);
  console.log(table(['path', ...processes.map(role), 'all'], ([['direct', direct], ['forwarded', forwarded]] as const).map(([path, rounds]) => {
    const per = processes.map((name) => percentile(rounds.map((r) => r.cpu.get(name)!), 50));
    return [path, ...per.map((us) => Math.round(us)), Math.round(per.reduce((sum, us) => sum + us, 0))];
  })));
  return percentile(options.queued ? completed : accepted, 50);
}
