import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startCliHost, type CliHost } from './host.js';
import { runParley } from './parley-process.js';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Every command path of `parley`, for the --help check. */
const COMMANDS = [
  [], ['start'], ['instances'], ['instances', 'list'], ['instances', 'show'], ['instances', 'create'], ['instances', 'delete'],
  ['instances', 'move'], ['connect'], ['send'], ['webhooks'], ['webhooks', 'stats'], ['webhooks', 'dead-letters'], ['webhooks', 'redeliver'],
  ['cluster'], ['cluster', 'status'], ['cluster', 'drain'], ['cluster', 'resume'],
];

describe('parley: settings, help, bad input and exit codes', () => {
  let t: CliHost;
  let key: string;
  const parley = (args: string[], env: Record<string, string> = {}) => runParley(args, { cwd: t.cwd, env });

  before(async () => {
    t = await startCliHost();
    ({ data: { key } } = await t.host.client.call('adminCreateInstance', { body: { name: 'solo', options: { number: '5511950000001' } } }));
  });
  after(() => t.stop());

  it('--help works for every command (exit 0, its usage on stdout); --version prints the version', async () => {
    for (const path of COMMANDS) {
      const run = await parley([...path, '--help']);
      assert.equal(run.code, 0, `${path.join(' ')}: ${run.stderr}`);
      assert.ok(run.stdout.startsWith(`Usage: parley${path.length ? ` ${path.join(' ')}` : ''} `), run.stdout);
    }
    const top = await parley(['--help']);
    assert.ok(top.stdout.includes('Exit codes:') && top.stdout.includes('6  connect: not linked'), top.stdout);
    assert.deepEqual(await parley(['--version']), { code: 0, stdout: '0.1.0\n', stderr: '' });
  });

  it('usage errors exit 2 and change nothing', async () => {
    const cases: [string[], RegExp][] = [
      [['bogus'], /^error: unknown command 'bogus'/],
      [[], /^Usage: parley /],
      [['instances', 'list', '--bogus'], /^error: unknown option '--bogus'/],
      [['send', 'solo'], /^error: missing required argument 'to'/],
      [['send', 'solo', '1', 'x', 'extra'], /^error: too many arguments for 'send'/],
      [['webhooks', 'dead-letters', 'solo', '--limit', '0'], /--limit <n>' argument '0' is invalid\. must be a whole number from 1 to 500/],
      [['webhooks', 'redeliver', 'solo'], /^parley: give the dead-letter ids to redeliver, or --all\n$/],
      [['webhooks', 'redeliver', 'solo', 'msg_1', '--all'], /^parley: give dead-letter ids or --all, not both\n$/],
      [['connect', 'solo', '--qr', 'sixel'], /argument 'sixel' is invalid\. Allowed choices are auto, ansi, text, text-inverted/],
      [['connect', 'solo', '--pairing-code', 'abc'], /must be the phone number with country code/],
      [['instances', 'create', '--options', '[1]'], /must be a JSON object/],
      [['instances', 'create', '--option', 'number'], /must be key=value/],
      [['cluster', 'drain'], /^error: missing required argument 'node'/],
      [['cluster', 'drain', 'n1', '--wait', '--timeout', '0'], /--timeout <seconds>' argument '0' is invalid\. must be a whole number from 1 to 86400/],
      [['cluster', 'resume', ''], /^parley: the node must not be empty\n$/],
      [['instances', 'move', 'solo'], /^error: missing required argument 'node'/],
      [['--url', 'ftp://example', 'instances', 'list'], /^parley: --url must be an http\(s\) URL, got "ftp:\/\/example"\n$/],
    ];
    for (const [args, stderr] of cases) {
      const run = await parley([...t.flags, ...args]);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, stderr, args.join(' '));
    }
    const { data } = await t.host.client.call('adminListInstances');
    assert.equal(data.length, 1, 'nothing was created');
  });

  it('a wrong admin token exits 3 (auth) with the server\'s message; --json puts the error on stderr as JSON', async () => {
    const run = await parley(['--url', t.host.url, '--token', 'wrong-token-0123456789', 'instances', 'list']);
    assert.equal(run.code, 3);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, 'parley: invalid admin token [401 unauthorized] (give the admin token with --token or PARLEY_ADMIN_TOKEN)\n');
    const json = await parley(['--url', t.host.url, '--json', 'send', 'solo', '1', 'x'], { PARLEY_ADMIN_TOKEN: 'wrong-token-0123456789' });
    assert.equal(json.code, 3);
    assert.deepEqual(JSON.parse(json.stderr), {
      error: { message: 'invalid admin token [401 unauthorized] (give the admin token with --token or PARLEY_ADMIN_TOKEN)', exitCode: 3, status: 401, code: 'unauthorized' },
    });
    // An admin command without any token: refused before a request.
    const none = await parley(['--url', t.host.url, 'instances', 'delete', 'solo']);
    assert.equal(none.code, 3);
    assert.equal(none.stderr, 'parley: instances delete needs the admin token: give it with --token or PARLEY_ADMIN_TOKEN\n');
  });

  it('an unknown instance exits 4 (not found): by name with the admin token, by key without', async () => {
    const byName = await parley([...t.flags, 'webhooks', 'stats', 'nobody']);
    assert.equal(byName.code, 4);
    assert.equal(byName.stderr, 'parley: no instance has the id, key or name "nobody"\n');
    const byKey = await parley(['--url', t.host.url, 'send', 'not-a-key', '1', 'x']);
    assert.equal(byKey.code, 4);
    assert.match(byKey.stderr, /^parley: .* \[404 instance_not_found\]\n$/);
  });

  it('a name two instances share (a store written before names were unique) is refused (exit 2) naming both ids; the id and the key still work', async () => {
    // Such twins cannot be created through the API any more (409 name_taken): they are written to storage directly.
    const created = [];
    for (const number of ['5511950000011', '5511950000012']) {
      created.push((await t.host.client.call('adminCreateInstance', { body: { options: { number } } })).data);
    }
    const storage = t.host.server.context.storage;
    for (const { id } of created) await storage.instances.update(id, { name: 'twin' });
    const twins = created.map((c) => ({ ...c, name: 'twin' }));
    const run = await parley([...t.flags, 'instances', 'show', 'twin']);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, `parley: 2 instances are named "twin" (${twins[0]!.id}, ${twins[1]!.id}): give the id or the key\n`);
    assert.equal((await parley([...t.flags, 'instances', 'show', twins[1]!.id])).code, 0);
    assert.equal((await parley([...t.flags, 'instances', 'show', '--', twins[0]!.key])).code, 0);
    for (const twin of twins) await t.host.client.call('adminDeleteInstance', { params: { key: twin.id } });
  });

  it('`--` ends the options: an instance key that begins with "-" goes after it', async () => {
    const run = await parley([...t.flags, '--json', 'instances', 'show', '--', key]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal((JSON.parse(run.stdout) as { key: string }).key, key);
    assert.equal((await parley([...t.flags, 'instances', 'show', '-not-an-option'])).code, 2, 'without --, a leading "-" is an option');
  });

  it('an unreachable server exits 5', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const run = await parley(['--url', url, '--token', t.host.adminToken, 'instances', 'list']);
    assert.equal(run.code, 5);
    assert.equal(run.stderr, `parley: cannot reach the server at ${url}: ECONNREFUSED\n`);
  });

  it('an answer that is not Parley\'s, or none within --request-timeout, exits 5', async () => {
    const hung: ServerResponse[] = [];
    const other = createHttpServer((req, res) => {
      if (req.url?.startsWith('/admin/instances')) res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>');
      else hung.push(res); // never answered
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    try {
      const proxy = await parley(['--url', url, '--token', t.host.adminToken, 'instances', 'list']);
      assert.equal(proxy.code, 5);
      assert.equal(proxy.stderr, 'parley: HTTP 502: <h1>Bad Gateway</h1> [502 http_error]\n');
      const started = Date.now();
      const silent = await parley(['--url', url, '--request-timeout', '1', 'send', 'some-key', '1', 'x']);
      assert.equal(silent.code, 5);
      assert.equal(silent.stderr, `parley: the server at ${url} did not answer in time\n`);
      assert.ok(Date.now() - started < 10_000);
    } finally {
      for (const res of hung) res.destroy();
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('flags win over PARLEY_URL and PARLEY_ADMIN_TOKEN; the variables alone work', async () => {
    const down = `http://127.0.0.1:${await closedPort()}`;
    const env = { PARLEY_URL: t.host.url, PARLEY_ADMIN_TOKEN: t.host.adminToken };
    assert.equal((await parley(['instances', 'list'], env)).code, 0);
    assert.equal((await parley(['--url', down, 'instances', 'list'], env)).code, 5, '--url wins');
    assert.equal((await parley(['--token', 'wrong-token-0123456789', 'instances', 'list'], env)).code, 3, '--token wins');
    assert.equal((await parley(['--url', t.host.url, '--token', t.host.adminToken, 'instances', 'list'], { PARLEY_URL: down, PARLEY_ADMIN_TOKEN: 'wrong-token-0123456789' })).code, 0);
  });

  it('without a token, reads ./data/admin-token (or $PARLEY_DATA_DIR/admin-token) for a loopback server only', async () => {
    mkdirSync(join(t.cwd, 'data'), { recursive: true });
    writeFileSync(join(t.cwd, 'data', 'admin-token'), `${t.host.adminToken}\n`);
    const local = await parley(['--url', t.host.url, '--json', 'instances', 'list']);
    assert.equal(local.code, 0, local.stderr);
    assert.equal((JSON.parse(local.stdout) as unknown[]).length, 1);
    const elsewhere = join(t.cwd, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'admin-token'), 'wrong-token-0123456789\n');
    assert.equal((await parley(['--url', t.host.url, 'instances', 'list'], { PARLEY_DATA_DIR: elsewhere })).code, 3, 'PARLEY_DATA_DIR is where the file is');
    // A server elsewhere never gets the local token: refused before any request (.invalid never resolves).
    const remote = await parley(['--url', 'http://parley.invalid', 'instances', 'list']);
    assert.equal(remote.code, 3);
    assert.match(remote.stderr, /needs the admin token/);
  });
});
