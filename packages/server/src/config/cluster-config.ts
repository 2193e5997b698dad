/**
 * Cluster settings: a node joins a cluster when it has a node id, an address other nodes reach it at
 * and the shared secret of node-to-node calls. Timing rules (docs/cluster.md): an owner renews its
 * leases every `renewIntervalMs`; a lease lives `leaseTtlMs` in Redis; an owner that has not renewed
 * stops its connections `driftMarginMs` before the lease could expire anywhere.
 */
export interface ClusterConfig {
  nodeId: string;
  advertiseUrl: string;
  secret: string;
  leaseTtlMs: number;
  renewIntervalMs: number;
  driftMarginMs: number;
  /** How long a forwarding node waits for an instance's new owner during a handover. */
  handoverWaitMs: number;
  /** Rebalancing moves one node starts per minute (a joining node takes its share gradually). */
  movesPerMinute: number;
  /** How long a node that stopped heartbeating stays listed as dead (`alive: false`) before the live nodes prune it. */
  deadNodeRetentionMs: number;
}

/** Raised for an invalid cluster setting; the message names the field. */
export class ClusterConfigError extends Error {}

/** JSON Schema of the `cluster` member of the config file. */
export const clusterConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    nodeId: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' },
    advertiseUrl: { type: 'string', pattern: '^https?://[^/]+/?$' },
    secret: { type: 'string', minLength: 16 },
    leaseTtlMs: { type: 'integer', minimum: 1000, maximum: 600000 },
    renewIntervalMs: { type: 'integer', minimum: 100, maximum: 300000 },
    driftMarginMs: { type: 'integer', minimum: 0, maximum: 300000 },
    handoverWaitMs: { type: 'integer', minimum: 0, maximum: 600000 },
    movesPerMinute: { type: 'integer', minimum: 0, maximum: 10000 },
    deadNodeRetentionMs: { type: 'integer', minimum: 1000, maximum: 604800000 },
  },
} as const;

const NODE_ID = new RegExp(clusterConfigSchema.properties.nodeId.pattern);
const ADVERTISE_URL = new RegExp(clusterConfigSchema.properties.advertiseUrl.pattern);

/**
 * Resolves the cluster settings from the file's `cluster` member and the environment
 * (`PARLEY_NODE_ID`, `PARLEY_ADVERTISE_URL`, `PARLEY_CLUSTER_SECRET` win). Undefined when none of
 * the three is set (a single server, as before); a partial or inconsistent set throws, naming the field.
 */
export function resolveClusterConfig(file: Partial<ClusterConfig> | undefined, env: NodeJS.ProcessEnv): ClusterConfig | undefined {
  const nodeId = env.PARLEY_NODE_ID || file?.nodeId;
  const advertiseUrl = env.PARLEY_ADVERTISE_URL || file?.advertiseUrl;
  const secret = env.PARLEY_CLUSTER_SECRET || file?.secret;
  if (nodeId === undefined && advertiseUrl === undefined && secret === undefined) return undefined;
  const missing = (field: string, variable: string) =>
    new ClusterConfigError(`cluster.${field} (${variable}) is required when a cluster is configured (cluster.nodeId, cluster.advertiseUrl and cluster.secret go together)`);
  if (nodeId === undefined) throw missing('nodeId', 'PARLEY_NODE_ID');
  if (advertiseUrl === undefined) throw missing('advertiseUrl', 'PARLEY_ADVERTISE_URL');
  if (secret === undefined) throw missing('secret', 'PARLEY_CLUSTER_SECRET');
  if (!NODE_ID.test(nodeId)) throw new ClusterConfigError('cluster.nodeId (PARLEY_NODE_ID) must be 1-64 letters, digits, "_", "." or "-", starting with a letter or digit');
  if (!ADVERTISE_URL.test(advertiseUrl)) throw new ClusterConfigError('cluster.advertiseUrl (PARLEY_ADVERTISE_URL) must be an http(s) origin such as http://10.0.0.5:8080');
  if (secret.length < 16) throw new ClusterConfigError('cluster.secret (PARLEY_CLUSTER_SECRET) must be at least 16 characters');
  const config: ClusterConfig = {
    nodeId, advertiseUrl: advertiseUrl.replace(/\/$/, ''), secret,
    leaseTtlMs: file?.leaseTtlMs ?? 8000,
    renewIntervalMs: file?.renewIntervalMs ?? 2000,
    driftMarginMs: file?.driftMarginMs ?? 1000,
    handoverWaitMs: file?.handoverWaitMs ?? 20000,
    movesPerMinute: file?.movesPerMinute ?? 30,
    deadNodeRetentionMs: file?.deadNodeRetentionMs ?? 300_000,
  };
  // Two renewals must fit in a lease with the margin to spare: one lost renewal never costs a lease.
  if (2 * config.renewIntervalMs + config.driftMarginMs >= config.leaseTtlMs) {
    throw new ClusterConfigError(
      `cluster.leaseTtlMs (${config.leaseTtlMs}) must exceed 2 × cluster.renewIntervalMs + cluster.driftMarginMs (${2 * config.renewIntervalMs + config.driftMarginMs})`,
    );
  }
  return config;
}
