import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { killLeftovers, spawnNode, untilProcess, type NodeProcess } from '@parley/testkit';
import { SERVER_BIN } from '../support/server-bin.js';

// A process a failed test left running would keep this file's process alive: none outlives the file.
after(killLeftovers);

/** What `npm start` runs. */
/** The storage's start-up line, logged at info by every run below. */
const OPEN_LINE = 'sqlite storage open';

/**
 * Runs the server with its stdout on a real pseudo-terminal: util-linux `script` (`-q` quiet, `-f`
 * flush, `-e` its child's exit code, the typescript thrown away), in a process group of its own.
 */
function onTerminal(env: Record<string, string>): NodeProcess {
  const child = spawn('script', ['-qfec', `${process.execPath} ${SERVER_BIN}`, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', TERM: 'xterm', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Stops a run (its whole process group: `script` and the server under it) and waits for it. */
async function stop(proc: NodeProcess): Promise<void> {
  try {
    process.kill(-proc.child.pid!, 'SIGTERM');
  } catch {
    proc.child.kill('SIGTERM');
  }
  await proc.exited;
}

/** The output's line that holds the storage's start-up message, once there is one. */
const openLine = (proc: NodeProcess) => untilProcess(() => proc.stdout().split(/\r?\n/).find((l) => l.includes(OPEN_LINE)), OPEN_LINE, proc);

describe('log format: pretty on a terminal, JSON into a pipe, either by choice', () => {
  let dir: string;
  let n = 0;
  const env = (extra: Record<string, string> = {}) => ({
    PARLEY_CONFIG: join(dir, 'parley.json'), PORT: '0', PARLEY_DATA_DIR: join(dir, `data-${++n}`),
    PARLEY_ADMIN_TOKEN: 'log-format-admin-token-0123456789', LOG_LEVEL: 'info', ...extra,
  });
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'parley-log-format-'));
    writeFileSync(join(dir, 'parley.json'), JSON.stringify({
      host: '127.0.0.1', defaultChannel: 'sandbox',
      plugins: [{ package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }],
    }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('on a terminal: coloured, human lines (time, level, message, fields), no JSON', async () => {
    const proc = onTerminal(env());
    try {
      const line = await openLine(proc);
      assert.ok(!line.trimStart().startsWith('{'), line);
      // \x1b[32mINFO\x1b[39m: pino-pretty colours the level on a terminal.
      assert.match(line, /^\[\d\d:\d\d:\d\d\.\d{3}\] \x1b\[32mINFO\x1b\[39m.*: \x1b\[36msqlite storage open\x1b\[39m/, JSON.stringify(line));
      assert.match(proc.stdout(), /\r\n {4}\x1b\[35mfile\x1b\[39m: ".*parley\.db"\r\n/, 'fields on their own lines');
      assert.ok(!proc.stdout().includes('log-format-admin-token'), 'the admin token is never printed');
    } finally {
      await stop(proc);
    }
  });

  it('on a terminal with PARLEY_LOG_FORMAT=json: JSON lines', async () => {
    const proc = onTerminal(env({ PARLEY_LOG_FORMAT: 'json' }));
    try {
      assert.equal((JSON.parse(await openLine(proc)) as { msg: string }).msg, OPEN_LINE);
    } finally {
      await stop(proc);
    }
  });

  it('into a pipe: JSON lines; with PARLEY_LOG_FORMAT=pretty: human lines without colours', async () => {
    const json = spawnNode(SERVER_BIN, [], { env: env() });
    try {
      assert.equal((JSON.parse(await openLine(json)) as { msg: string }).msg, OPEN_LINE);
    } finally {
      await stop(json);
    }
    const pretty = spawnNode(SERVER_BIN, [], { env: env({ PARLEY_LOG_FORMAT: 'pretty' }) });
    try {
      assert.match(await openLine(pretty), /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO.*: sqlite storage open$/);
    } finally {
      await stop(pretty);
    }
  });
});
