import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { ParleyConfig } from '@parley/server';
import { streamEvents } from '@parley/client';
import { startCliHost, type CliHost } from './host.js';
import { killLeftovers, untilProcess as until } from '@parley/testkit';
import { PARLEY_BIN, runParley, spawnParley } from './parley-process.js';
import { decodeTerminalQrs } from './terminal-qr-decode.js';

// A process a failed test left running would keep this file's process alive: none outlives the file.
after(killLeftovers);

/** Runs a program (not Node) to its end: exit status and stdout. */
async function runCommand(file: string, args: string[], cwd: string): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(file, args, { cwd, env: { PATH: process.env.PATH ?? '', TERM: 'xterm' }, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout };
}

/**
 * `parley connect`: the QR in each terminal style decodes (parsed back from the printed characters and
 * read with jsQR) to a code the server issued; new codes replace it until the phone links; the pairing
 * code flow; the time-out.
 */
describe('parley connect: the terminal QR, its updates, pairing codes', () => {
  let t: CliHost;
  /** Every QR code the server issued (the channel's `qrcode` events). */
  const issued = new Set<string>();
  let untap: () => void;
  let created = 0;

  /** A new sandbox instance: its key and number. */
  async function instance(): Promise<{ key: string; number: string }> {
    const number = `55119400000${String(++created).padStart(2, '0')}`;
    const { data } = await t.host.client.call('adminCreateInstance', { body: { channel: 'sandbox', name: `qr-${created}`, options: { number } } });
    return { key: data.key, number };
  }

  /** `parley_event_streams_open` of the server's /metrics. */
  async function openStreams(): Promise<number> {
    const text = await t.host.client.call('metrics');
    return Number(/^parley_event_streams_open (\d+)$/m.exec(text)?.[1]);
  }

  before(async () => {
    // A new code every 1.2 s, 100 times before an attempt ends; one event stream per instance.
    t = await startCliHost({ qrRefreshMs: 1_200, maxQrRefreshes: 100 }, { streams: { maxPerInstance: 1 } as ParleyConfig['streams'] });
    untap = t.host.server.context.bus.tap((event) => {
      if (event.type === 'qrcode') issued.add(event.qr);
    });
  });
  after(async () => {
    untap();
    await t.stop();
  });

  for (const style of ['ansi', 'text', 'text-inverted'] as const) {
    it(`--qr ${style}: the drawn code decodes to the server's; not linked within --timeout exits 6`, async () => {
      const { key } = await instance();
      const run = await runParley([...t.flags, 'connect', '--qr', style, '--timeout', '1', '--', key], { cwd: t.cwd });
      assert.equal(run.code, 6, run.stderr);
      assert.equal(run.stderr, 'parley: not linked within 1 s\n');
      const decoded = decodeTerminalQrs(run.stdout, style);
      assert.ok(decoded.length >= 1, run.stdout);
      for (const code of decoded) assert.ok(code && issued.has(code), `decoded ${code} is a code the server issued`);
      if (style === 'ansi') assert.ok(run.stdout.includes('\x1b[47m'), 'explicit white background');
    });
  }

  it('follows the event stream: redraws each new code until the phone scans one, then exits 0', async () => {
    const { key, number } = await instance();
    const proc = spawnParley([...t.flags, 'connect', '--qr', 'text', '--', key], { cwd: t.cwd });
    await until(() => (proc.stdout().includes('QR code 1: waiting') ? true : undefined), 'the first code', proc);
    assert.equal(await openStreams(), 1, 'connect holds the instance\'s event stream open');
    // A recheck comes only every 10 s: codes 2 and 3 (every 1.2 s) arrive through the stream's qrcode events.
    await until(() => (proc.stdout().includes('QR code 3: waiting') ? true : undefined), 'the third code', proc, 8_000);
    await t.host.client.call('sandbox_post_key_scan', { params: { key }, body: {} });
    assert.deepEqual(await proc.exited, { code: 0, signal: null }, proc.stderr());
    assert.equal(proc.stderr(), '', 'the stream served throughout: no fallback to polling');
    assert.equal(await openStreams(), 0, 'and is closed at exit');
    const decoded = decodeTerminalQrs(proc.stdout(), 'text');
    assert.ok(decoded.length >= 3, proc.stdout());
    assert.equal(new Set(decoded).size, decoded.length, 'each drawn code is new');
    for (const code of decoded) assert.ok(code && issued.has(code) && code.endsWith(`sandbox:${number}`));
    assert.equal((proc.stdout().match(/New QR code \(the previous one no longer links\):/g) ?? []).length, decoded.length - 1);
    assert.match(proc.stdout(), new RegExp(`Linked: .* is connected as ${number} .*\\.\\n$`));
  });

  it('falls back to polling (said on stderr) when the event stream is refused, and still links', async () => {
    const { key, number } = await instance();
    // This client holds the instance's only stream (streams.maxPerInstance 1): connect's answers 429.
    const hold = new AbortController();
    const held = streamEvents({ baseUrl: t.host.url, key, signal: hold.signal })[Symbol.asyncIterator]().next();
    try {
      for (let i = 0; i < 100 && (await openStreams()) < 1; i++) await new Promise((r) => setTimeout(r, 20));
      const proc = spawnParley([...t.flags, 'connect', '--qr', 'text', '--', key], { cwd: t.cwd });
      await until(() => (proc.stderr().includes('polling every second instead') ? true : undefined), 'the fallback', proc, 10_000);
      assert.match(proc.stderr(), /^parley: the event stream is unavailable \(.*streams\.maxPerInstance.*\): polling every second instead\n$/);
      await until(() => (proc.stdout().includes('QR code 1: waiting') ? true : undefined), 'the first code', proc);
      await t.host.client.call('sandbox_post_key_scan', { params: { key }, body: {} });
      assert.deepEqual(await proc.exited, { code: 0, signal: null }, proc.stderr());
      assert.match(proc.stdout(), new RegExp(`Linked: .* is connected as ${number} `));
    } finally {
      hold.abort();
      await held.catch(() => undefined);
    }
  });

  it('on a terminal: draws in colour (ansi) and redraws each new code in place', async () => {
    const { key } = await instance();
    // util-linux `script` gives the command a pseudo-terminal and copies what it draws; -e passes the exit status on.
    // A 60-column terminal: the header line wraps, and the redraw must count the rows it takes.
    const command = `stty cols 60 rows 60 && exec ${[process.execPath, PARLEY_BIN, ...t.flags, 'connect', '--timeout', '4', '--', key].map((arg) => `'${arg}'`).join(' ')}`;
    const run = await runCommand('script', ['-qefc', command, '/dev/null'], t.cwd);
    assert.equal(run.code, 6, run.stdout);
    const screen = run.stdout.replace(/\r/g, '');
    const redraws = screen.match(/\x1b\[(\d+)A\x1b\[0J/g) ?? [];
    assert.ok(redraws.length >= 2, `codes were redrawn in place: ${JSON.stringify(screen.slice(0, 200))}`);
    assert.ok(!screen.includes('New QR code'), 'no appended codes on a terminal');
    // Each redraw moves up over exactly the rows the previous drawing took, its long lines wrapped at 60 columns.
    const drawings = screen.split(/\x1b\[\d+A\x1b\[0J/);
    const rows = (drawing: string) => drawing.split('\n').slice(0, -1).reduce((n, line) => n + Math.max(1, Math.ceil(stripVTControlCharacters(line).length / 60)), 0);
    assert.ok(drawings[0]!.split('\n').some((line) => line.length > 60), 'a line wraps');
    redraws.forEach((redraw, i) => assert.equal(Number(/\d+/.exec(redraw)![0]), rows(drawings[i]!), `redraw ${i + 1}`));
    const decoded = drawings.flatMap((drawing) => decodeTerminalQrs(drawing, 'ansi'));
    assert.equal(decoded.length, redraws.length + 1);
    for (const code of decoded) assert.ok(code && issued.has(code), `decoded ${code} is a code the server issued`);
  });

  it('--pairing-code prints the code for the number and exits 0 once it is entered on the phone', async () => {
    const { key, number } = await instance();
    const proc = spawnParley([...t.flags, 'connect', `qr-${created}`, '--pairing-code', `+${number}`], { cwd: t.cwd });
    const code = await until(() => /^Pairing code for (\d+): ([A-Z0-9]{4}-[A-Z0-9]{4})$/m.exec(proc.stdout())?.slice(1), 'the pairing code', proc);
    assert.equal(code[0], number);
    await t.host.client.call('sandbox_post_key_scan', { params: { key }, body: { code: code[1] } });
    assert.deepEqual(await proc.exited, { code: 0, signal: null }, proc.stderr());
    assert.match(proc.stdout(), new RegExp(`Linked: .* is connected as ${number} `));

    const json = await instance();
    const events = spawnParley([...t.flags, '--json', 'connect', '--pairing-code', json.number, '--', json.key], { cwd: t.cwd });
    const line = await until(() => events.stdout().split('\n').find((l) => l.includes('pairing_code')), 'the pairing_code event', events);
    const event = JSON.parse(line) as { event: string; code: string; phoneNumber: string };
    assert.equal(event.phoneNumber, json.number);
    await t.host.client.call('sandbox_post_key_scan', { params: { key: json.key }, body: { code: event.code } });
    assert.deepEqual(await events.exited, { code: 0, signal: null }, events.stderr());
    assert.equal((JSON.parse(events.stdout().trimEnd().split('\n').at(-1)!) as { event: string }).event, 'linked');
  });

  it('a pairing code the server refuses (not this number) exits 1 with the API message', async () => {
    const { key } = await instance();
    const run = await runParley([...t.flags, 'connect', '--pairing-code', '5511999999999', '--', key], { cwd: t.cwd });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^parley: body\.phoneNumber must be this sandbox instance's number \(\d+\) \[400 validation_failed\]/);
  });
});
