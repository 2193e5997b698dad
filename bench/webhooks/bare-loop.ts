/**
 * The bare loop of bench/webhooks' whole-path run, in a process of its own: re-POSTs the bodies and
 * headers a webhook receiver captured (a JSON file of `CapturedRequest`s, argv[3]) to the receiver at
 * argv[2], `concurrency` (argv[4]) at a time, with undici (argv[5] `undici`: an Agent keeping that
 * many keep-alive connections) or node:http (`node-http`: a keep-alive Agent). A warm-up pass over
 * the first 1,000 requests comes first; then all of them are sent, and the process prints one JSON
 * line `{ requests, cpuUs }`: its own user + system CPU time over that pass.
 */
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { bareUndici } from './bare-undici.js';
import type { CapturedRequest } from './receiver.js';

const [, , base, file, concurrencyArg, client] = process.argv as [string, string, string, string, string, string];
const requests = JSON.parse(readFileSync(file, 'utf8')) as CapturedRequest[];
const concurrency = Number(concurrencyArg);
const undici = bareUndici(concurrency);
const nodeAgent = new HttpAgent({ keepAlive: true, maxSockets: concurrency });

const postUndici = (one: CapturedRequest) => undici.post(`${base}${one.path}`, one.headers, one.body);

function postNodeHttp(one: CapturedRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${one.path}`, { method: 'POST', headers: one.headers, agent: nodeAgent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(one.body);
  });
}

const post = client === 'node-http' ? postNodeHttp : postUndici;

async function pass(list: CapturedRequest[]): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < list.length) {
      const status = await post(list[next++]!);
      if (status !== 200) throw new Error(`bare loop: HTTP ${status}`);
    }
  }));
}

await pass(requests.slice(0, 1_000));
const before = process.cpuUsage();
await pass(requests);
const used = process.cpuUsage(before);
process.stdout.write(`${JSON.stringify({ requests: requests.length, cpuUs: used.user + used.system })}\n`);
await undici.close();
nodeAgent.destroy();
