import type { Clock, ClusterStore, InstanceRecord, Logger, Storage } from '@parley/core';
import { fencedStorage } from '@parley/host';
import type { ClusterConfig } from '../config/cluster-config.js';
import { ConfigError } from '../config/config.js';
import type { InstancePlacement, InstanceRegistry } from '../instances/instance-registry.js';
import type { InstanceRestorer } from '../instances/instance-restorer.js';
import type { OutboundWorker } from '../send/outbound-worker.js';
import { ClusterNode } from './cluster-node.js';
import type { InstanceHost } from './instance-host.js';
import type { ClusterGauges, ClusterObserver } from './cluster-observer.js';
import { ClusterRouter } from './cluster-router.js';
import type { EventFanIn } from './event-fan-in.js';
import { Forwarder } from './forwarder.js';
import type { NodeEvents } from './node-events.js';
import { UpgradeForwarder } from './upgrade-forwarder.js';

/** The pieces of a cluster node the server holds. */
export interface ClusterRuntime {
  node: ClusterNode;
  router: ClusterRouter;
  forwarder: Forwarder;
  upgrades: UpgradeForwarder;
  placement: InstancePlacement;
  /** Other nodes' events for this node's admin streams (set once the event bus and the streams exist). */
  fanIn?: EventFanIn;
  /** Nodes joining, leaving and dying, for every node's admin streams (set with {@link fanIn}). */
  nodeEvents?: NodeEvents;
}

/**
 * Checks that this server can be a node (shared storage, a shared admin token) and builds its
 * coordination; `join` then registers it (refusing a node id in use). `metrics.cluster` adds the
 * cluster metrics (ServerMetrics) and answers the observer the node and its router report to.
 */
export function clusterRuntime(
  config: ClusterConfig, storage: Storage,
  deps: { clock: Clock; logger: Logger; adminToken?: string; metrics: { cluster(gauges: ClusterGauges): ClusterObserver } },
): ClusterRuntime {
  if (!storage.cluster) {
    throw new ConfigError(
      `cluster.nodeId (PARLEY_NODE_ID) is set, but the storage back end "${storage.name}" cannot run a cluster: every node must use one shared @parley/storage-redis or @parley/storage-postgres`,
    );
  }
  if (!deps.adminToken) {
    throw new ConfigError('a cluster node needs PARLEY_ADMIN_TOKEN, the same on every node (any node answers any admin request)');
  }
  const logger = deps.logger.child({ component: 'cluster', node: config.nodeId });
  const store: ClusterStore = storage.cluster();
  // The gauges are read at scrapes only, once the node exists.
  const observer = deps.metrics.cluster({ owned: () => node.leases.size, nodes: () => node.nodes() });
  const node = new ClusterNode(store, config, deps.clock, logger, observer);
  const forwarder = new Forwarder(config.nodeId, config.secret);
  const upgrades = new UpgradeForwarder(config.nodeId, config.secret);
  const router = new ClusterRouter(node, forwarder, upgrades, storage.instances, logger, observer);
  const placement: InstancePlacement = {
    claim: (id) => node.claim(id),
    storageFor: (id, base) => fencedStorage(base, id, () => node.fence(id)),
  };
  return { node, router, forwarder, upgrades, placement };
}

/** What ends an instance's event streams once it is handed over (their clients resume at the new owner). */
export interface HandedOverStreams {
  /** Resolves once the events handled so far are in the event log. */
  written(): Promise<void>;
  /** Ends the instance's open streams. */
  endInstance(id: string): void;
}

/**
 * How the node starts and stops the instances it takes and gives up: through the registry, each start
 * under the restorer's per-driver concurrency bound and rate (a failover reconnects like a restart).
 * A stopped instance's event streams end once its last events are in the event log: their clients
 * reconnect (to any node, which forwards them to the new owner) and resume from their last event id.
 * A stop does not wait for a connection the instance's start has under way (an adapter's stop leaves
 * such a connect nothing to connect); it resolves once that connect has settled as well.
 */
export function registryHost(
  registry: InstanceRegistry, storage: Storage, restorer: Pick<InstanceRestorer, 'throttle'>, node: ClusterNode, logger: Logger, streams: HandedOverStreams,
  outbound?: Pick<OutboundWorker, 'takeOver' | 'wake'>,
): InstanceHost {
  const connecting = new Map<string, Promise<void>>();
  /** Stops under way: the node may take an instance again before its last stop here is over. */
  const stopping = new Map<string, Promise<void>>();
  return {
    // Sends the previous owner held leased leave now, not when their queue lease expires (docs/queue.md).
    ...(outbound ? {
      async takeOver(id: string) {
        const released = await outbound.takeOver(id);
        if (released > 0) logger.info({ instance: id, released }, 'outbound sends of the previous owner taken over');
      },
    } : {}),
    async start(id, lease) {
      // Loaded before that stop forgot the instance, the start would get the runtime being stopped.
      await stopping.get(id);
      const record = await storage.instances.get(id);
      if (!record) {
        await node.store.forget(id);
        return;
      }
      let running: Promise<void> | undefined;
      const task = async () => {
        const runtime = await registry.load(record);
        // Handed over while loading or waiting: the hand-over stops it; it must not connect. Nor when the node took the
        // instance again meanwhile: that lease's own start connects it (once). From this check on (no await between),
        // a hand-over's stop waits for the connection below.
        if (!node.runs(lease)) return;
        if (record.wantsConnection) {
          const connection = Promise.resolve(runtime.main.capabilities.connection?.connect()).then(() => undefined);
          connecting.set(id, connection.catch(() => undefined));
          try {
            await connection;
          } finally {
            connecting.delete(id);
          }
        }
        logger.info({ instance: id }, 'instance started on this node');
      };
      try {
        await restorer.throttle(record.driver, () => (running = task()));
      } finally {
        // The restorer stopping rejects a start that is under way; it still finishes before the start counts as done.
        await running?.catch(() => undefined);
      }
      // Its queued sends are this node's to send now; the worker may be asleep (its own queue looked empty).
      outbound?.wake();
    },
    async stop(id) {
      const stopped = (async () => {
        // At once, not after a connect under way (which may hang on storage past the lease's deadline): the
        // adapter's stop makes that connect leave nothing connected (ChannelAdapter.stop). The stop counts as
        // done once that connect has settled too.
        await registry.handOver(id);
        await connecting.get(id);
      })();
      const settled = stopped.catch(() => undefined);
      stopping.set(id, settled);
      try {
        await stopped;
      } finally {
        if (stopping.get(id) === settled) stopping.delete(id);
      }
      // Not awaited: appends retried while storage is unreachable must not hold the node's loop back.
      void streams.written().catch(() => undefined).then(() => streams.endInstance(id));
    },
  };
}

/** Offers the instances that want a connection and have no owner to the cluster (start-up: the nodes' loops share them out). */
export async function offerUnowned(node: ClusterNode, records: InstanceRecord[]): Promise<void> {
  const wanting = records.filter((r) => r.wantsConnection).map((r) => r.id);
  const owners = await node.store.owners(wanting);
  await node.store.offer(wanting.filter((id) => !owners.has(id)));
}
