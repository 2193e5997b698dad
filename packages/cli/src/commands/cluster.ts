import { Command } from 'commander';
import type { OperationResponse } from '@parley/client';
import { withContext } from '../command-kit.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { emit, isoTime, table } from '../output.js';
import { requireAdmin, type CliContext } from '../settings.js';
import { addWaitOptions, waitFor, type WaitOptions } from '../wait.js';

/** `GET /admin/cluster`'s `data`. */
type ClusterView = OperationResponse<'adminGetCluster'>['data'];

const NODE = ['<node>', 'node id, as `parley cluster status` lists it'] as const;

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

function describeCluster(data: ClusterView): string {
  if (!data.enabled) return 'This server is not a cluster node: it runs as a single server (docs/cluster.md says how to run several nodes).';
  const rows = data.nodes.map((n) => [
    n.id === data.node ? `${n.id} *` : n.id, n.address, yesNo(n.alive), yesNo(n.draining), String(n.instances),
    `${Math.round(n.load * 100)}%`, isoTime(n.startedAt), isoTime(n.lastHeartbeat),
  ]);
  return `${table(['id', 'address', 'alive', 'draining', 'instances', 'load', 'started', 'last heartbeat'], rows)}\n(* answered this request)`;
}

/** `POST /admin/cluster/nodes/{node}/drain`: out of service (`draining`) or back into it. */
async function setDraining(ctx: CliContext, what: string, node: string, draining: boolean) {
  requireAdmin(ctx, what);
  if (!node) throw new CliError('the node must not be empty', ExitCode.usage);
  return (await ctx.client.call('adminDrainNode', { params: { node }, body: { draining } })).data;
}

/** How many instances `node` owns now: `undefined` once none, else a progress line (an error once it is gone). */
async function stillOwned(ctx: CliContext, node: string): Promise<string | undefined> {
  const { data } = await ctx.client.call('adminGetCluster');
  const listed = data.nodes.find((n) => n.id === node);
  if (!listed?.alive) throw new CliError(`node ${node} left the cluster while draining (not listed alive by GET /admin/cluster)`, ExitCode.failed);
  return listed.instances === 0 ? undefined : `${node} still owns ${listed.instances} instance${listed.instances === 1 ? '' : 's'}…`;
}

/** `parley cluster status|drain|resume`: the nodes of a cluster (docs/cluster.md), and taking one out of service. */
export function clusterCommand(): Command {
  const cluster = new Command('cluster').description('cluster nodes: status, drain one before maintenance, resume it (admin token)');

  cluster.command('status').description('list the nodes: address, alive, draining, instances owned, load, start, last heartbeat')
    .action(withContext(async (ctx) => {
      requireAdmin(ctx, 'cluster status');
      const { data } = await ctx.client.call('adminGetCluster');
      emit(ctx, data, () => describeCluster(data));
    }));

  const drain = cluster.command('drain').argument(...NODE)
    .description('take a node out of service: it hands its instances over to the other nodes and takes none until resumed');
  addWaitOptions(drain, 'the node owns no instance')
    .action(withContext<WaitOptions>(async (ctx, options, node) => {
      const data = await setDraining(ctx, 'cluster drain', node!, true);
      if (options.wait) await waitFor(ctx, options.timeout, `node ${data.node} owns no instance`, () => stillOwned(ctx, data.node));
      emit(ctx, data, () => (options.wait
        ? `Node ${data.node} is drained: it owns no instance and takes none until: parley cluster resume ${data.node}`
        : `Node ${data.node} is draining: it hands its instances over and takes none until: parley cluster resume ${data.node}`));
    }));

  cluster.command('resume').description('put a drained node back into service: it takes instances again').argument(...NODE)
    .action(withContext(async (ctx, _options, node) => {
      const data = await setDraining(ctx, 'cluster resume', node!, false);
      emit(ctx, data, () => `Node ${data.node} is back in service: it takes instances again (its share arrives gradually).`);
    }));

  return cluster;
}
