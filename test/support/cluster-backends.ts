import { randomBytes } from 'node:crypto';
import type { ClusterStore, Storage } from '@parley/core';
import { PostgresStorage } from '@parley/storage-postgres';
import { createTestDatabase } from '@parley/storage-postgres/testing';
import { RedisStorage } from '@parley/storage-redis';
import { deleteKeys } from '@parley/storage-redis/testing';
import { serviceUrlOrSkip } from '@parley/testkit';
import type { NodeStorage } from '@parley/testkit/host';

/** A back end a cluster runs on (docs/cluster.md). */
export type ClusterBackendName = 'redis' | 'postgres';

/** The shared store of one cluster test: what its nodes use, and the test's own client of it. */
export interface ClusterBackend {
  name: ClusterBackendName;
  /** What every node of the test is started with. */
  node: NodeStorage;
  /** What a node is started with when it reaches the store through a TCP proxy on loopback `port` (partition tests). */
  through(port: number): NodeStorage;
  /** Where the store listens (what such a proxy forwards to). */
  upstream: { host: string; port: number };
  /** The test's own client of the nodes' store (initialized): event log, sandbox links, fenced-write probes. */
  storage: Storage;
  cluster: ClusterStore;
  /** Closes the client and deletes what the test stored (its Redis keys, its database). */
  close(): Promise<void>;
}

/**
 * The back ends a cluster test runs on: Redis and PostgreSQL, each when its server answers (REDIS_URL,
 * DATABASE_URL), else a loud skip naming the variable (a failure under PARLEY_REQUIRE_SERVICES=1).
 */
export function clusterBackends(suite: string): ClusterBackendName[] {
  const names: ClusterBackendName[] = [];
  if (serviceUrlOrSkip('REDIS_URL', `${suite} on Redis`)) names.push('redis');
  if (serviceUrlOrSkip('DATABASE_URL', `${suite} on PostgreSQL`)) names.push('postgres');
  return names;
}

/** `url` with its port replaced by a loopback proxy's. */
function viaPort(url: string, port: number): string {
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return proxied.toString();
}

function upstreamOf(url: string, defaultPort: number): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || defaultPort) };
}

/** A cluster on the Redis at `url` under `keyPrefix` (the machine's, or a private `redis-server` of the test). */
export async function redisClusterBackend(url: string, keyPrefix: string): Promise<ClusterBackend> {
  const storage = new RedisStorage({ url, keyPrefix });
  await storage.init();
  return {
    name: 'redis', node: { redisUrl: url, keyPrefix }, through: (port) => ({ redisUrl: viaPort(url, port), keyPrefix }),
    upstream: upstreamOf(url, 6379), storage, cluster: storage.cluster(),
    close: async () => {
      await storage.close();
      await deleteKeys(url, keyPrefix);
    },
  };
}

/** Opens the store of one cluster test: a key prefix of its own on Redis, a database of its own on PostgreSQL (`label`: [a-z0-9_]). */
export async function openClusterBackend(name: ClusterBackendName, label: string): Promise<ClusterBackend> {
  if (name === 'redis') return redisClusterBackend(process.env.REDIS_URL!, `parley-test:${label}:${process.pid}-${randomBytes(4).toString('hex')}:`);
  const database = await createTestDatabase(process.env.DATABASE_URL!, label);
  const storage = new PostgresStorage({ url: database.url, poolSize: 4 });
  await storage.init();
  // Small pools: the machine's PostgreSQL takes 100 connections, shared by the test files running at once (a cluster
  // here is up to four nodes, each with its pool and a listening connection).
  const nodeStorage = (url: string): NodeStorage => ({ storagePlugin: { package: '@parley/storage-postgres', options: { url, poolSize: 4 } } });
  return {
    name, node: nodeStorage(database.url), through: (port) => nodeStorage(viaPort(database.url, port)),
    upstream: upstreamOf(database.url, 5432), storage, cluster: storage.cluster(),
    close: async () => {
      await storage.close();
      await database.drop();
    },
  };
}
