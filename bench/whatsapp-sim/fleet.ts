/**
 * Instances of bench/whatsapp-sim, made and linked over the real APIs: a WhatsApp instance is created
 * through `POST /admin/instances`, connected (`POST /{key}/instance` answers its QR), and its QR scanned
 * by a simulated phone through the simulator's control API (`POST /accounts/{number}/scan`); Baileys
 * then restarts (515) and logs in. A sandbox instance is connected and scanned through the sandbox's
 * own route. Both wait until `GET /{key}/instance` says `phoneConnected`.
 */
import { simCall, type ParleyNode, type SimProcess } from './processes.js';

/** A linked instance: its key and its account's number. */
export interface Linked {
  key: string;
  number: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `fn` over `items`, at most `concurrency` at once; resolves with the results in order. */
export async function pool<T, R>(items: T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

async function waitConnected(node: ParleyNode, key: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { instance } = await node.call<{ instance: { phoneConnected: boolean } }>('GET', `/${key}/instance`, undefined, key);
    if (instance.phoneConnected) return;
    await sleep(250);
  }
  throw new Error(`instance ${key.slice(0, 6)}… did not connect within ${timeoutMs} ms`);
}

/** Number of the `index`-th simulated account of a bench (13 digits, Brazilian style). */
export const simNumber = (base: number, index: number) => String(5511_0000_00000 + base * 100_000 + index);

/** Creates an account on the simulator (optionally its history first), then a WhatsApp instance linked to it by QR. */
export async function linkWhatsApp(node: ParleyNode, sim: SimProcess, number: string, webhook?: Record<string, unknown>): Promise<Linked> {
  await simCall(sim, 'POST', '/accounts', { number, pushName: `Bench ${number.slice(-4)}` }).catch((err: Error) => {
    if (!err.message.includes('409')) throw err;
  });
  const { data } = await node.call<{ data: { key: string } }>('POST', '/admin/instances', { channel: 'whatsapp', ...(webhook ? { webhook } : {}) });
  // Under heavy load a QR may expire before the phone scans it: one more attempt, with the QR the instance shows then.
  await scanWhatsApp(node, sim, data.key, number).catch(() => scanWhatsApp(node, sim, data.key, number));
  return { key: data.key, number };
}

/** Connects an existing WhatsApp instance and has `number`'s phone scan its QR; resolves once it is connected. */
export async function scanWhatsApp(node: ParleyNode, sim: SimProcess, key: string, number: string): Promise<void> {
  const connecting = await node.call<{ qrcode: string }>('POST', `/${key}/instance`, undefined, key);
  if (!connecting.qrcode) throw new Error(`no QR for ${key.slice(0, 6)}…: ${JSON.stringify(connecting)}`);
  await simCall(sim, 'POST', `/accounts/${number}/scan`, { qr: connecting.qrcode });
  await waitConnected(node, key, 180_000);
}

/** Creates a sandbox instance with `number` and links it through the sandbox's scan route. */
export async function linkSandbox(node: ParleyNode, number: string, webhook?: Record<string, unknown>): Promise<Linked> {
  const { data } = await node.call<{ data: { key: string } }>('POST', '/admin/instances', { channel: 'sandbox', options: { number }, ...(webhook ? { webhook } : {}) });
  await node.call('POST', `/${data.key}/instance`, undefined, data.key);
  await node.call('POST', `/sandbox/${data.key}/scan`, undefined, data.key);
  await waitConnected(node, data.key, 60_000);
  return { key: data.key, number };
}
