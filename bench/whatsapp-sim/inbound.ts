/**
 * Inbound messages, from a phone to a delivered webhook. One Parley process and one simulator: I
 * WhatsApp instances linked to simulated accounts, each with its native webhook on a local receiver
 * (its own process, recording only `message` deliveries); I simulated phones (accounts with no linked
 * device) each text one of those accounts through the control API (`POST /accounts/{n}/messages`: the
 * phone Signal-encrypts in the simulator's process, Parley's Baileys decrypts). Beside it, the sandbox
 * path in the same Parley process: I receiving sandbox instances with the same webhook, and I sandbox
 * peers texting them through `POST /{key}/message/text` — the sandbox has no phone outside Parley, so
 * its figure includes the sender's side (the REST send, its queue and stored record) as well.
 *
 * Rounds alternate the two paths (which goes first alternates too); each round sends M messages spread
 * over the I pairs, at most `concurrency` sends in flight, and ends when the receiver has M messages.
 * Figures per round: messages/s and the Parley process's CPU (/proc/<pid>/stat) per message.
 */
import { Receiver } from '../webhooks/receiver-client.js';
import { linkSandbox, linkWhatsApp, pool, simNumber, type Linked } from './fleet.js';
import { ParleyNode, simCall, startSimProcess } from './processes.js';

export interface InboundRound {
  path: 'whatsapp' | 'sandbox';
  round: number;
  messages: number;
  seconds: number;
  cpuMicrosPerMessage: number;
}

export interface InboundOptions {
  instances: number;
  messages: number;
  rounds: number;
  concurrency: number;
}

type Sender = (pair: number, text: string) => Promise<unknown>;

export async function inboundScenario(options: InboundOptions): Promise<InboundRound[]> {
  const receiver = await Receiver.start('message');
  const sim = await startSimProcess();
  const node = await ParleyNode.start(sim);
  const webhook = { allowWebhook: true, allowNumber: 'all', webhookFormat: 'native', webhookMessage: `${receiver.url}/in` };
  const indices = Array.from({ length: options.instances }, (_, i) => i);
  try {
    const accounts: Linked[] = await pool(indices, 8, (i) => linkWhatsApp(node, sim, simNumber(3, i), webhook));
    const phones = await pool(indices, 8, async (i) => {
      const number = simNumber(4, i);
      await simCall(sim, 'POST', '/accounts', { number, pushName: `Phone ${i}` });
      return number;
    });
    const receivers: Linked[] = await pool(indices, 8, (i) => linkSandbox(node, simNumber(5, i), webhook));
    const peers: Linked[] = await pool(indices, 8, (i) => linkSandbox(node, simNumber(6, i)));
    const senders: Record<InboundRound['path'], Sender> = {
      whatsapp: (pair, text) => simCall(sim, 'POST', `/accounts/${phones[pair]}/messages`, { to: accounts[pair]!.number, text }),
      sandbox: (pair, text) => node.call('POST', `/${peers[pair]!.key}/message/text`, { to: receivers[pair]!.number, text }, peers[pair]!.key),
    };
    const run = async (path: InboundRound['path'], count: number, round: number): Promise<InboundRound> => {
      receiver.reset();
      const all = receiver.expect(count);
      const started = performance.now();
      const cpu = node.cpuMicros();
      await pool(Array.from({ length: count }, (_, i) => i), options.concurrency, (i) => senders[path](i % options.instances, `round ${round} message ${i}`));
      await all;
      const seconds = (performance.now() - started) / 1000;
      return { path, round, messages: count, seconds, cpuMicrosPerMessage: (node.cpuMicros() - cpu) / count };
    };
    // Warm-up: each pair's first messages start its Signal session, chat and contact.
    for (const path of ['whatsapp', 'sandbox'] as const) await run(path, options.instances * 3, 0);
    const rounds: InboundRound[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      const order = round % 2 === 1 ? (['whatsapp', 'sandbox'] as const) : (['sandbox', 'whatsapp'] as const);
      for (const path of order) {
        const result = await run(path, options.messages, round);
        console.error(`  round ${round} ${path}: ${(result.messages / result.seconds).toFixed(0)} msg/s, ${result.cpuMicrosPerMessage.toFixed(0)} µs CPU/msg`);
        rounds.push(result);
      }
    }
    return rounds;
  } finally {
    await node.stop();
    await sim.stop();
    receiver.stop();
  }
}
