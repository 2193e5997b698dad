import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { killLeftovers, spawnNode } from '@parley/testkit';
import { freePort } from '@parley/testkit/host';
import {
  composeServices, dockerfileRuntime, dockerStop, imageDir, ROOT, runImageCommand, untilHealthy, type RuntimeStage,
} from '../support/container-image.js';
import { PrivateRedis } from '@parley/storage-redis/testing';

// A process a failed test left running would keep this file's process alive: none outlives the file.
after(killLeftovers);

/**
 * What the container image runs, without a Docker engine: the directory scripts/build-image.sh builds
 * (the Dockerfile's build stage runs the same script and copies it to /app) holds what runs and nothing
 * of the development tree, and the Dockerfile's command, environment and health check serve from it,
 * alone as compose.yaml configures it and as the two nodes of compose.cluster.yaml on a Redis. The
 * servers listen on loopback (HOST=127.0.0.1 over the image's 0.0.0.0) on free ports.
 */
describe('the container image', () => {
  let dir: string;
  let removeImage: () => void = () => undefined;
  let stage: RuntimeStage;
  const scratch = mkdtempSync(join(tmpdir(), 'parley-image-test-'));
  before(() => {
    ({ dir, remove: removeImage } = imageDir());
    stage = dockerfileRuntime();
  });
  after(() => {
    rmSync(scratch, { recursive: true, force: true });
    removeImage();
  });

  it('holds the server, the plugins and the parley command, and no development package, test or build file', async () => {
    for (const path of ['packages/distribution/bin/parley-server.js', 'packages/dashboard/dist/app/index.html', 'plugins/storage-redis/dist/src/index.js', 'packages/cli/bin/parley.js']) {
      assert.ok(existsSync(join(dir, path)), `${path} is in the image`);
    }
    for (const path of ['packages/testkit', 'test', 'bench', 'examples', 'packages/server/dist/test', 'packages/server/src', 'packages/server/tsconfig.tsbuildinfo']) {
      assert.ok(!existsSync(join(dir, path)), `${path} is not in the image`);
    }
    for (const dev of ['typescript', 'vite', 'playwright-core', 'dependency-cruiser', 'lerna', 'autocannon', '@parley/testkit', '@parley/e2e-tests']) {
      assert.ok(!existsSync(join(dir, 'node_modules', dev)), `${dev} was pruned`);
    }
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(manifest.devDependencies, undefined);
    const version = spawnNode(join(dir, 'packages/cli/bin/parley.js'), ['--version'], { cwd: dir });
    assert.deepEqual([(await version.exited).code, version.stdout().trim()], [0, JSON.parse(readFileSync(join(ROOT, 'packages/cli/package.json'), 'utf8')).version]);
  });

  it('runs as a non-root user with its data directory in a volume', () => {
    assert.notEqual(stage.user, 'root');
    assert.ok(stage.user && !/^0(:|$)/.test(stage.user), stage.user);
    assert.ok(stage.env.PARLEY_DATA_DIR, 'the image sets PARLEY_DATA_DIR');
    assert.deepEqual(stage.volumes, [stage.env.PARLEY_DATA_DIR]);
  });

  it('compose.yaml: the image alone on SQLite serves the health check, the dashboard and the admin API with the generated token, and stops on SIGTERM', async () => {
    const { parley } = composeServices('compose.yaml', {});
    assert.equal(parley!.build, '.');
    assert.deepEqual(parley!.volumes, [`parley-data:${stage.env.PARLEY_DATA_DIR}`]);
    assert.deepEqual(parley!.ports, [`8080:${stage.env.PORT}`]);
    const dataDir = join(scratch, 'alone');
    const port = String(await freePort());
    const env = { ...stage.env, ...parley!.environment, PARLEY_DATA_DIR: dataDir, PORT: port, HOST: '127.0.0.1' };
    const server = runImageCommand(dir, stage, env);
    try {
      await untilHealthy(dir, stage, env, server);
      const base = `http://127.0.0.1:${port}`;
      const dashboard = await fetch(`${base}/dashboard/`);
      assert.deepEqual([dashboard.status, (await dashboard.text()).includes('<div id="app">')], [200, true]);
      // The guides are in the image (the server renders docs/ under /docs/guides).
      assert.equal((await fetch(`${base}/docs/guides`)).status, 200);
      const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
      const created = await fetch(`${base}/admin/instances`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ channel: 'sandbox', name: 'alice' }),
      });
      assert.equal(created.status, 200, await created.clone().text());
      assert.equal(((await created.json()) as { data: { name: string } }).data.name, 'alice');
      // The parley command of the image, in the container's environment: the token from the data directory.
      const listed = spawnNode(join(dir, 'packages/cli/bin/parley.js'), ['--json', 'instances', 'list'], { cwd: dir, env: { ...env, PARLEY_URL: base } });
      assert.equal((await listed.exited).code, 0, listed.stderr());
      assert.deepEqual((JSON.parse(listed.stdout()) as { name: string }[]).map((i) => i.name), ['alice']);
    } finally {
      assert.equal(await dockerStop(server), 0, server.stderr());
    }
  });

  it('compose.cluster.yaml: two nodes on one Redis become one cluster and answer for each other', async () => {
    const secrets = { PARLEY_ADMIN_TOKEN: 'compose-admin-token-0123456789', PARLEY_CLUSTER_SECRET: 'compose-cluster-secret-0123456789' };
    assert.throws(() => composeServices('compose.cluster.yaml', {}), /set PARLEY_ADMIN_TOKEN/);
    const services = composeServices('compose.cluster.yaml', secrets);
    assert.match(services.redis!.image!, /^redis:/);
    const nodes = Object.keys(services).filter((name) => name.startsWith('parley-'));
    assert.deepEqual(nodes, ['parley-1', 'parley-2']);
    // A Redis of the test's own: the example config's key prefix is no one else's business.
    const redis = new PrivateRedis(await freePort(), mkdtempSync(join(scratch, 'redis-')));
    await redis.start();
    const ports = new Map(await Promise.all(nodes.map(async (name) => [name, String(await freePort())] as const)));
    const started = nodes.map((name) => {
      const service = services[name]!;
      assert.deepEqual(service.depends_on, { redis: { condition: 'service_healthy' } });
      const environment = service.environment!;
      // The config file is the repository's, mounted where PARLEY_CONFIG names it.
      const mount = service.volumes!.map((v) => v.split(':')).find(([, target]) => target === environment.PARLEY_CONFIG);
      assert.ok(mount, `${name} mounts its PARLEY_CONFIG`);
      assert.ok(service.volumes!.includes(`${name}-data:${stage.env.PARLEY_DATA_DIR}`), `${name} keeps its data in a volume`);
      assert.equal(environment.REDIS_URL, 'redis://redis:6379');
      // Each node advertises itself by its service name, on the image's port.
      const advertised = new URL(environment.PARLEY_ADVERTISE_URL!);
      assert.deepEqual([advertised.hostname, advertised.port], [name, stage.env.PORT]);
      const env = {
        ...stage.env, ...environment, PARLEY_CONFIG: join(ROOT, mount[0]!), REDIS_URL: redis.url, PARLEY_ADVERTISE_URL: `http://127.0.0.1:${ports.get(name)}`,
        PARLEY_DATA_DIR: join(scratch, name), PORT: ports.get(name)!, HOST: '127.0.0.1',
      };
      return { name, env, server: runImageCommand(dir, stage, env) };
    });
    try {
      for (const { env, server } of started) await untilHealthy(dir, stage, env, server);
      const admin = (name: string, path: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${ports.get(name)}${path}`, {
        ...init, headers: { authorization: `Bearer ${secrets.PARLEY_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      });
      const cluster = (await (await admin('parley-1', '/admin/cluster')).json()) as { data: { nodes: { id: string; alive: boolean }[] } };
      assert.deepEqual(cluster.data.nodes.map((n) => [n.id, n.alive]).sort(), [['node1', true], ['node2', true]]);
      const created = await admin('parley-2', '/admin/instances', { method: 'POST', body: JSON.stringify({ channel: 'sandbox', name: 'shared' }) });
      assert.equal(created.status, 200, await created.clone().text());
      const { data } = (await created.json()) as { data: { id: string } };
      const listed = (await (await admin('parley-1', '/admin/instances')).json()) as { data: { id: string; owner: string | null }[] };
      assert.deepEqual(listed.data.map((i) => i.id), [data.id]);
    } finally {
      for (const { server } of started) assert.equal(await dockerStop(server), 0, server.stderr());
      await redis.stop();
    }
  });
});
