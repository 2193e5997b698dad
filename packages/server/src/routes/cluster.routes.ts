import { ConflictError, NotFoundError, ValidationError, type NodeRecord } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { ClusterNode } from '../cluster/cluster-node.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, s } from '../http/schema.js';
import { InstanceAdmin } from '../services/instance-admin.js';

const tag = 'Admin';

const nodeSchema = s.openObject({
  id: s.string(), address: s.string({ description: 'Base URL the other nodes forward requests to.' }),
  startedAt: s.integer({ description: 'When the node process started (ms since the epoch).' }),
  lastHeartbeat: s.integer({ description: 'When the node last refreshed its entry (ms, its clock).' }),
  instances: s.integer({ description: 'Instances the node owns (leases held).' }),
  load: s.number({ description: 'Its share of the owned instances of the live nodes (0 to 1).' }),
  alive: s.boolean({ description: 'False once its entry expired: the node is gone and its instances are being taken by others.' }),
  draining: s.boolean({ description: 'A draining node takes no instances and hands its own over.' }),
}, ['id', 'address', 'startedAt', 'lastHeartbeat', 'instances', 'load', 'alive', 'draining']);

const clusterSchema = s.openObject({
  enabled: s.boolean({ description: 'False on a single server (no cluster configured): `nodes` is then empty.' }),
  node: s.string({ description: 'Id of the node that answered.' }),
  nodes: s.array(nodeSchema),
}, ['enabled', 'nodes']);

/** The cluster node, or 409 `not_clustered` on a single server. */
function clustered(ctx: ServerContext): ClusterNode {
  if (!ctx.cluster) throw new ConflictError('this server is not a cluster node (see docs/cluster.md)', 'not_clustered');
  return ctx.cluster;
}

function view(nodes: NodeRecord[]) {
  const total = nodes.filter((n) => n.alive).reduce((sum, n) => sum + n.load, 0);
  return nodes.map((n) => ({
    id: n.id, address: n.address, startedAt: n.startedAt, lastHeartbeat: n.lastHeartbeat, instances: n.load,
    load: n.alive && total > 0 ? Math.round((n.load / total) * 1000) / 1000 : 0, alive: n.alive, draining: n.draining,
  }));
}

/** The admin view of a cluster (docs/cluster.md#admin-api): nodes, moving an instance, draining a node. */
export function clusterRoutes(ctx: ServerContext): RouteDefinition[] {
  const admin = new InstanceAdmin(ctx);
  return [
    defineRoute({
      method: 'get', path: '/admin/cluster', operationId: 'adminGetCluster', tag, auth: 'admin',
      summary: 'Nodes of the cluster: address, start, last heartbeat, instances owned, load',
      response: dataResponse(clusterSchema),
      handler: async () => {
        if (!ctx.cluster) return { data: { enabled: false, nodes: [] } };
        return { data: { enabled: true, node: ctx.cluster.id, nodes: view(await ctx.cluster.refreshNodes()) } };
      },
    }),
    defineRoute<{ key: string }, unknown, { node: string }>({
      method: 'post', path: '/admin/instances/{key}/move', operationId: 'adminMoveInstance', tag, auth: 'admin',
      summary: 'Move an instance (by key or public id) to another node',
      description: 'Its owner stops it and the target node takes it and reconnects it within about a second; requests meanwhile wait for the new owner.',
      params: s.object({ key: s.string({ minLength: 1 }) }, ['key']),
      body: s.object({ node: s.string({ minLength: 1, maxLength: 64, description: 'Id of a live, non-draining node.' }) }, ['node']),
      response: dataResponse(s.openObject({ instance: s.string(), from: s.string(), to: s.string() }, ['instance', 'from', 'to'])),
      errors: [404, 409],
      handler: async ({ params, body }) => {
        const node = clustered(ctx);
        const runtime = await admin.find(params.key);
        const target = (await node.refreshNodes()).find((n) => n.id === body.node);
        if (!target || !target.alive || target.draining) throw new ValidationError(`body.node "${body.node}" is not a live node taking instances`);
        // Forwarded here by the cluster router: this node owns the instance.
        if (target.id !== node.id) await node.store.requestMove(runtime.id, target.id);
        return { data: { instance: runtime.id, from: node.id, to: target.id } };
      },
    }),
    defineRoute<{ node: string }, unknown, { draining: boolean }>({
      method: 'post', path: '/admin/cluster/nodes/{node}/drain', operationId: 'adminDrainNode', tag, auth: 'admin',
      summary: 'Drain a node (hand all its instances to the others, take none) or take it back into service',
      params: s.object({ node: s.string({ minLength: 1, maxLength: 64 }) }, ['node']),
      body: s.object({ draining: s.boolean({ default: true, description: '`false` puts a drained node back into service.' }) }),
      response: dataResponse(s.openObject({ node: s.string(), draining: s.boolean() }, ['node', 'draining'])),
      errors: [404, 409],
      handler: async ({ params, body }) => {
        const node = clustered(ctx);
        // The cluster router forwarded the request to the node named in the path.
        if (params.node !== node.id) throw new NotFoundError('node', 'node_not_found');
        const draining = body.draining ?? true;
        await node.setDraining(draining);
        return { data: { node: node.id, draining } };
      },
    }),
  ];
}
