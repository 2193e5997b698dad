import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LOCAL_SERVICES } from '../src/service-env.js';

/** The service variables a developer may not have set: each run of the suite below starts without them. */
const SERVICE_VARS = ['REDIS_URL', 'AMQP_URL', 'NATS_URL', 'MONGODB_URL', 'DATABASE_URL', 'PARLEY_REQUIRE_SERVICES'];

/**
 * A suite file as the repository's service suites are written: it asks for the service of PROBE_VAR
 * (with PROBE_LOCAL as its local address, when given) and declares one test that names the URL it got.
 */
const SUITE = `import { it } from 'node:test';
import { serviceUrlOrSkip } from ${JSON.stringify(new URL('../src/service-env.js', import.meta.url).href)};
const name = process.env.PROBE_VAR;
const url = serviceUrlOrSkip(name, 'the probed suite', process.env.PROBE_LOCAL ? { local: process.env.PROBE_LOCAL } : {});
if (url) it('runs on ' + url, () => { if (process.env[name] !== url) throw new Error(name + ' is not ' + url); });
`;

interface Run {
  code: number | null;
  out: string;
}

/** Whether something accepts a TCP connection at the URL's address. */
function listening(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.setTimeout(1000, () => (socket.destroy(), resolve(false)));
    socket.on('connect', () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
  });
}

describe('serviceUrlOrSkip: a suite run with its service variable unset', () => {
  let dir: string;
  let file: string;
  let open: Server;
  let openUrl: string;
  let closedUrl: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-service-env-'));
    file = join(dir, 'probed.test.mjs');
    writeFileSync(file, SUITE);
    open = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => open.listen(0, '127.0.0.1', resolve));
    openUrl = `redis://127.0.0.1:${(open.address() as AddressInfo).port}`;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    closedUrl = `redis://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
  });
  after(async () => {
    await new Promise((resolve) => open.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Runs the suite file in its own node:test process, without the developer's service variables (nor
   * NODE_TEST_CONTEXT, which would make it report to this run instead).
   */
  function run(env: Record<string, string>): Promise<Run> {
    const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SERVICE_VARS.includes(name) && name !== 'NODE_TEST_CONTEXT'));
    const child = spawn(process.execPath, ['--test', '--test-reporter=spec', file], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk));
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
  }

  it('uses the local address when something answers there, and sets the variable to it', async () => {
    const { code, out } = await run({ PROBE_VAR: 'PARLEY_PROBE_URL', PROBE_LOCAL: openUrl });
    assert.equal(code, 0, out);
    assert.match(out, new RegExp(`✔ runs on ${openUrl}`));
    assert.match(out, /ℹ skipped 0/);
  });

  it('skips loudly, naming the variable and the address, when nothing answers there', async () => {
    const { code, out } = await run({ PROBE_VAR: 'PARLEY_PROBE_URL', PROBE_LOCAL: closedUrl });
    assert.equal(code, 0, out);
    assert.ok(out.includes(`SKIPPED the probed suite: PARLEY_PROBE_URL is unset and nothing answers at ${closedUrl}; start the service there or set PARLEY_PROBE_URL to run it`), out);
    assert.match(out, /ℹ skipped 1/);
    assert.doesNotMatch(out, /runs on/);
  });

  it('fails instead under PARLEY_REQUIRE_SERVICES=1', async () => {
    const { code, out } = await run({ PROBE_VAR: 'PARLEY_PROBE_URL', PROBE_LOCAL: closedUrl, PARLEY_REQUIRE_SERVICES: '1' });
    assert.equal(code, 1, out);
    assert.ok(out.includes(`PARLEY_PROBE_URL is unset and nothing answers at ${closedUrl}, but PARLEY_REQUIRE_SERVICES=1 requires it`), out);
    assert.match(out, /ℹ fail 1/);
  });

  it('takes a variable that is set as it is, without probing', async () => {
    const { code, out } = await run({ PROBE_VAR: 'PARLEY_PROBE_URL', PROBE_LOCAL: openUrl, PARLEY_PROBE_URL: closedUrl });
    assert.equal(code, 0, out);
    assert.match(out, new RegExp(`✔ runs on ${closedUrl}`));
  });

  for (const name of ['REDIS_URL', 'AMQP_URL', 'NATS_URL', 'DATABASE_URL']) {
    it(`${name}: the standard local address ${LOCAL_SERVICES[name]} when it answers, else a loud skip`, async () => {
      const local = LOCAL_SERVICES[name]!;
      const { code, out } = await run({ PROBE_VAR: name });
      assert.equal(code, 0, out);
      if (await listening(local)) {
        assert.ok(out.includes(`✔ runs on ${local}`), out);
      } else {
        assert.ok(out.includes(`SKIPPED the probed suite: ${name} is unset and nothing answers at ${local}`), out);
      }
    });
  }
});
