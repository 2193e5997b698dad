import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { killLeftovers, spawnNode, untilProcess, type NodeProcess } from '@parley/testkit';
import { freePort } from '@parley/testkit/host';
import { startSimulator, type RunningSimulator } from '@parley/whatsapp-sim';
import { browserUnavailable, launchChromium, signIn } from '../support/browser.js';
import { SERVER_BIN } from '../support/server-bin.js';
import { PARLEY_BIN } from '../support/parley-cli.js';

// A process a failed test left running would keep this file's process alive: none outlives the file.
after(killLeftovers);

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/config.whatsapp-sim.json');
const TOKEN = 'offline-admin-token-0123456789';
/** The example's phones: the first scans by default, the second is the customer. */
const [SHOP, CUSTOMER] = ['5511900000101', '5511900000102'];

interface Server { proc: NodeProcess; url: string; dataDir: string }

/** The real server, as `npm start` starts it, on a free port and a fresh data directory. */
async function startServer(config: string): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-offline-'));
  const port = await freePort();
  const proc = spawnNode(SERVER_BIN, [], { env: { PARLEY_CONFIG: config, PORT: String(port), PARLEY_DATA_DIR: dataDir, PARLEY_ADMIN_TOKEN: TOKEN } });
  const url = await untilProcess(() => /API {8}(http:\/\/127\.0\.0\.1:\d+)/.exec(proc.stdout())?.[1], 'the banner', proc, 30_000);
  return { proc, url, dataDir };
}

async function stopServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.proc.child.kill('SIGTERM');
  await server.proc.exited;
  rmSync(server.dataDir, { recursive: true, force: true });
}

async function call(server: Server, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${path}`, {
    method, headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

async function until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Sends a text to the customer and answers what the customer's simulated phone decrypted. */
async function sendAndRead(server: Server, key: string, text: string) {
  const sent = await call(server, 'POST', `/${key}/message/text`, { to: CUSTOMER, text });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  const { body } = await call(server, 'GET', `/${key}/instance`);
  const control = body.instance.connection.simulator.controlUrl as string;
  return until(async () => {
    const received = await (await fetch(`${control}/accounts/${CUSTOMER}/messages/received`)).json() as { id: string; text: string; fromNumber: string }[];
    return received.find((m) => m.id === sent.body.data.key.id);
  }, 'the customer\'s phone to decrypt the text');
}

describe('examples/config.whatsapp-sim.json: WhatsApp linked offline, on the in-process simulator', () => {
  let server: Server;
  before(async () => {
    server = await startServer(EXAMPLE);
  });
  after(() => stopServer(server));

  it('the dashboard\'s "Scan with simulated phone" links the instance, which then sends a text the customer\'s phone decrypts', { timeout: 120_000, skip: browserUnavailable() }, async () => {
    const created = await call(server, 'POST', '/admin/instances', { channel: 'whatsapp', name: 'shop' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const { key, id } = created.body.data as { key: string; id: string };
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await signIn(page, server.url, TOKEN);
      await page.goto(`${server.url}/dashboard/#/instances/${id}/connect`);
      await page.getByRole('button', { name: 'Connect: show the QR code' }).click();
      await page.locator('#qr-image').waitFor();
      await page.getByRole('button', { name: 'Scan with simulated phone' }).click();
      await page.locator('#connected-note').waitFor({ timeout: 30_000 });
      assert.match(await page.locator('#connected-note').innerText(), new RegExp(`Connected as \\+${SHOP}`));
    } finally {
      await browser.close();
    }
    const { body } = await call(server, 'GET', `/${key}/instance`);
    assert.equal(body.instance.connection.status, 'open');
    const got = await sendAndRead(server, key, 'Pedido confirmado');
    assert.deepEqual([got.text, got.fromNumber], ['Pedido confirmado', SHOP]);
  });

  it('`parley connect --simulate-scan` links from the terminal QR code; a bad phone is a clear 400 and links nothing', { timeout: 120_000 }, async () => {
    const created = await call(server, 'POST', '/admin/instances', { channel: 'whatsapp', name: 'terminal' });
    const { key } = created.body.data as { key: string };
    await call(server, 'POST', `/${key}/instance`);
    const wrong = await call(server, 'POST', `/${key}/instance/simulated-scan`, { phone: '5511999999999' });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.error.message, /not a simulated phone of this network; use one of 5511900000101, 5511900000102/);
    assert.equal((await call(server, 'GET', `/${key}/instance`)).body.instance.phoneConnected, false);

    const cwd = mkdtempSync(join(tmpdir(), 'parley-offline-cli-'));
    try {
      const cli = spawnNode(PARLEY_BIN, ['connect', 'terminal', '--simulate-scan', '--timeout', '60', '--qr', 'text'], {
        cwd, env: { PARLEY_URL: server.url, PARLEY_ADMIN_TOKEN: TOKEN },
      });
      const exit = await cli.exited;
      assert.equal(exit.code, 0, `${cli.stdout()}\n${cli.stderr()}`);
      assert.match(cli.stdout(), /Scan this QR code with the phone/);
      assert.match(cli.stdout(), new RegExp(`The simulated phone \\+${SHOP} scanned the code\\.\\nLinked: .* is connected as ${SHOP}`));
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
    const got = await sendAndRead(server, key, 'Enviado pelo terminal');
    assert.equal(got.text, 'Enviado pelo terminal');

    // The example's groupAddressing is lid: a group the instance creates is LID-addressed on the simulator, answered by number.
    const group = await call(server, 'POST', `/${key}/groups`, { name: 'Atacado', participants: [CUSTOMER] });
    assert.equal(group.status, 200, JSON.stringify(group.body));
    assert.deepEqual(group.body.data.participants.map((p: { id: string }) => p.id).sort(), [`${SHOP}@s.whatsapp.net`, `${CUSTOMER}@s.whatsapp.net`]);
    const control = (await call(server, 'GET', `/${key}/instance`)).body.instance.connection.simulator.controlUrl as string;
    const simulated = await (await fetch(`${control}/groups/${group.body.data.id}`)).json() as { addressingMode: string };
    assert.equal(simulated.addressingMode, 'lid');
  });
});

describe('a WhatsApp endpoint whose root key the channel was not given', () => {
  let sim: RunningSimulator;
  let dir: string;
  const servers: Server[] = [];
  before(async () => {
    sim = await startSimulator();
    dir = mkdtempSync(join(tmpdir(), 'parley-untrusted-'));
  });
  after(async () => {
    for (const server of servers) await stopServer(server);
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function serverOn(name: string, options: Record<string, unknown>): Promise<Server> {
    const config = join(dir, `${name}.json`);
    writeFileSync(config, JSON.stringify({
      host: '127.0.0.1', defaultChannel: 'whatsapp', logLevel: 'info',
      plugins: [{ package: '@parley/storage-sqlite' }, { package: '@parley/channel-baileys', options: { webSocketUrl: sim.url, connectTimeoutMs: 5000, ...options } }],
    }));
    const server = await startServer(config);
    servers.push(server);
    return server;
  }

  it('stops with a certificate error (state, last error and a log line), no QR code and no retries; with serverRootKey it shows a QR code', { timeout: 90_000 }, async () => {
    const untrusting = await serverOn('untrusting', {});
    const { key } = (await call(untrusting, 'POST', '/admin/instances', { channel: 'whatsapp', name: 'untrusting' })).body.data as { key: string };
    const answer = await call(untrusting, 'POST', `/${key}/instance`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.qrcode, '');
    assert.equal(answer.body.connection.status, 'stopped');
    assert.equal(answer.body.connection.lastError.reason, 'untrustedCertificate');
    assert.match(answer.body.connection.lastError.message, /^certificate error: the server's certificate is not signed by the trusted root key/);
    assert.equal(answer.body.connection.failure.reason, 'untrustedCertificate');
    assert.deepEqual(sim.simulator.pendingClients(), [], 'nothing registered with the untrusted server');
    assert.match(untrusting.proc.stdout() + untrusting.proc.stderr(), /WhatsApp connection stopped: certificate error: the server's certificate is not signed by the trusted root key/);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    assert.equal((await call(untrusting, 'GET', `/${key}/instance`)).body.instance.connection.status, 'stopped', 'no retry loop');

    const trusting = await serverOn('trusting', { serverRootKey: sim.rootPublicKey.toString('base64') });
    const trusted = (await call(trusting, 'POST', '/admin/instances', { channel: 'whatsapp', name: 'trusting' })).body.data as { key: string };
    const shown = await call(trusting, 'POST', `/${trusted.key}/instance`);
    assert.match(shown.body.qrcode, /^https:\/\/wa\.me\/settings\/linked_devices#2@/);
    assert.equal(shown.body.connection.status, 'waiting_for_qr_scan');
  });
});
