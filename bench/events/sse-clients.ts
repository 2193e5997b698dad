/**
 * The benchmark's SSE clients, run in their own process (forked with IPC by events.bench.ts) so that
 * the server process's memory and CPU are its own. Each client is a node:http request reading
 * `text/event-stream`; it counts the frames that carry an `id:`.
 *
 * IPC commands: {cmd:'open', url, count} answers {cmd:'opened'} once `count` clients got their 200;
 * {cmd:'expect', frames} answers {cmd:'reached'} once every client received `frames` event frames
 * since the last reset; {cmd:'reset'}; {cmd:'close'} closes every client and answers {cmd:'closed'}.
 */
import { Agent, request, type ClientRequest } from 'node:http';

type Command = { cmd: 'open'; url: string; count: number } | { cmd: 'expect'; frames: number } | { cmd: 'reset' } | { cmd: 'close' };

const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
const requests: ClientRequest[] = [];
let counts: number[] = [];
let expected = Infinity;
const send = (message: unknown) => process.send!(message);

function check(): void {
  if (expected === Infinity || counts.length === 0) return;
  for (const c of counts) if (c < expected) return;
  expected = Infinity;
  send({ cmd: 'reached' });
}

function open(url: string, count: number): void {
  let ready = 0;
  for (let i = 0; i < count; i++) {
    const slot = counts.push(0) - 1;
    const req = request(url, { agent, headers: { Accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) throw new Error(`stream answered ${res.statusCode}`);
      res.setEncoding('utf8');
      let rest = '';
      res.on('data', (chunk: string) => {
        const text = rest + chunk;
        const cut = text.lastIndexOf('\n');
        rest = text.slice(cut + 1);
        // Frames start with their id line; counting `id: ` at line starts counts events, not heartbeats.
        let at = -1;
        while ((at = text.indexOf('id: ', at + 1)) !== -1 && at <= cut) if (at === 0 || text[at - 1] === '\n') counts[slot]!++;
        check();
      });
      if (++ready === count) send({ cmd: 'opened' });
    });
    req.end();
    requests.push(req);
  }
}

process.on('message', (message: Command) => {
  switch (message.cmd) {
    case 'open':
      open(message.url, message.count);
      break;
    case 'expect':
      expected = message.frames;
      check();
      break;
    case 'reset':
      counts = counts.map(() => 0);
      break;
    case 'close':
      for (const req of requests.splice(0)) req.destroy();
      counts = [];
      setTimeout(() => send({ cmd: 'closed' }), 200);
      break;
  }
});
