import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { ClusterNode, ClusterView } from './api.js';
import { useSession } from './context.js';
import { useLive } from './live.js';
import { ago, when } from './time.js';
import { useAction, useLoad, type Loaded } from './use-load.js';

/** Reload period of the nodes table while the event stream is down (it streams: on events, and every 15 s). */
const NODES_POLL_MS = 3000;
/**
 * Events of the admin stream that change the nodes table: an instance that changes node (a drain, a
 * move, a rebalance, a failover) stops on one node and connects on another, each a `connection` event;
 * a node that joins, leaves gracefully or dies is a node event (docs/cluster.md, *Node events*).
 */
const NODE_EVENTS = ['connection', 'cluster.node.joined', 'cluster.node.left', 'cluster.node.dead'] as const;

/** Whether a node can take instances (a move's target): alive and not draining. */
export function takesInstances(node: ClusterNode): boolean {
  return node.alive && !node.draining;
}

/** The cluster as `GET /admin/cluster` answers it, loaded when the view is shown and on `reload()`. */
export function useCluster(): Loaded<ClusterView> {
  const { client } = useSession();
  return useLoad(() => client.call('adminGetCluster').then((r) => r.data), [client]);
}

/** Node events reload the table at most this often (a drain moves many instances, each with its events). */
const NODE_RELOAD_MIN_MS = 1000;

/** `fn` at most once per `ms`: calls meanwhile are folded into one at the end of the period. */
function useThrottled(fn: () => unknown, ms: number): () => void {
  const latest = useRef(fn);
  latest.current = fn;
  const state = useRef<{ last: number; timer?: ReturnType<typeof setTimeout> }>({ last: 0 });
  useEffect(() => () => clearTimeout(state.current.timer), []);
  return useCallback(() => {
    const s = state.current;
    if (s.timer) return;
    s.timer = setTimeout(() => {
      s.timer = undefined;
      s.last = Date.now();
      void latest.current();
    }, Math.max(0, s.last + ms - Date.now()));
  }, [ms]);
}

/** The nodes of the cluster, live while shown, with draining and resuming per node. */
export function ClusterPage() {
  const { client } = useSession();
  const cluster = useCluster();
  // Follows the admin event stream: instances changing node and nodes joining, leaving or dying reload the table;
  // what no event announces (heartbeats, loads) is read again with every other view's slow reload.
  const reload = useThrottled(cluster.reload, NODE_RELOAD_MIN_MS);
  useLive({ types: NODE_EVENTS, refresh: reload, pollMs: NODES_POLL_MS });
  const action = useAction();
  const [confirmDrain, setConfirmDrain] = useState<string>();
  const [done, setDone] = useState('');

  async function drain(node: string, draining: boolean) {
    setConfirmDrain(undefined);
    setDone('');
    const answer = await action.run(() => client.call('adminDrainNode', { params: { node }, body: { draining } }));
    if (answer) {
      setDone(answer.data.draining
        ? `${answer.data.node} is draining: it handed its instances to the other nodes and takes none.`
        : `${answer.data.node} is back in service: it takes instances again.`);
    }
    await cluster.reload();
  }

  function actions(node: ClusterNode) {
    if (!node.alive) return '—';
    if (node.draining) return <button type="button" class="secondary" disabled={action.busy} aria-label={`Resume ${node.id}`} onClick={() => drain(node.id, false)}>Resume</button>;
    if (confirmDrain !== node.id) return <button type="button" class="secondary" disabled={action.busy} aria-label={`Drain ${node.id}…`} onClick={() => setConfirmDrain(node.id)}>Drain…</button>;
    return (
      <span class="confirm" role="group" aria-label={`Confirm draining ${node.id}`}>
        <span>Hand every instance of {node.id} to the other nodes?</span>
        <button type="button" class="danger" disabled={action.busy} onClick={() => drain(node.id, true)}>Drain {node.id}</button>
        <button type="button" class="secondary" autoFocus onClick={() => setConfirmDrain(undefined)}>Cancel</button>
      </span>
    );
  }

  const data = cluster.data;
  const now = Date.now();
  return (
    <>
      <h1>Cluster</h1>
      {cluster.error && <p class="error" role="alert">{cluster.error}</p>}
      {action.error && <p class="error" role="alert">{action.error}</p>}
      {action.busy && <p role="status" aria-busy="true">Waiting for the node…</p>}
      {done && <p class="ok" role="status">{done}</p>}
      {!data ? !cluster.error && <p aria-busy="true">Loading the nodes…</p> : !data.enabled ? <p>This server is not a cluster node: it runs every instance itself.</p> : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Nodes table">
          <table class="nodes">
            <thead>
              <tr>
                <th scope="col">Node</th><th scope="col">Address</th><th scope="col">State</th><th scope="col">Draining</th>
                <th scope="col">Instances</th><th scope="col">Load</th><th scope="col">Started</th><th scope="col">Last heartbeat</th>
                <th scope="col"><span class="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {data.nodes.map((node) => (
                <tr key={node.id} data-node={node.id}>
                  <th scope="row">{node.id}{node.id === data.node && <> <span class="badge">this node</span></>}</th>
                  <td>{node.address}</td>
                  <td><span class={`badge node-${node.alive ? 'alive' : 'dead'}`}>{node.alive ? 'alive' : 'dead'}</span></td>
                  <td data-cell="draining">{node.draining ? 'yes' : 'no'}</td>
                  <td data-cell="instances">{node.instances}</td>
                  <td>{node.alive ? `${Math.round(node.load * 100)} %` : '—'}</td>
                  <td>{when(node.startedAt)}</td>
                  <td><time dateTime={new Date(node.lastHeartbeat).toISOString()} title={when(node.lastHeartbeat)}>{ago(node.lastHeartbeat, now)}</time></td>
                  <td>{actions(node)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data?.enabled && <p class="help">The node marked "this node" answered this page. Instances are listed with their node on the Instances page; an instance is moved from its own page.</p>}
    </>
  );
}
