import { useEffect, useState } from 'preact/hooks';
import { takesInstances, useCluster } from './cluster.js';
import { useSession } from './context.js';
import { useLive } from './live.js';
import { useAction } from './use-load.js';

/** How long the page follows a move until the target node runs the instance. */
const MOVE_WAIT_MS = 30_000;
/** How often the owner is read again meanwhile. */
const MOVE_POLL_MS = 1000;

/**
 * On a cluster node: moves the instance to another live node that takes instances, then reloads its
 * owner (`reloadOwner`) until the target runs it. The nodes are read when the page opens and after
 * each move.
 */
export function MoveInstance(props: { instanceKey: string; owner: string | null; reloadOwner(): Promise<void> }) {
  const { client } = useSession();
  const cluster = useCluster();
  const action = useAction();
  const [choice, setChoice] = useState('');
  const [moving, setMoving] = useState<{ to: string; until: number }>();
  const [done, setDone] = useState('');
  const targets = (cluster.data?.nodes ?? []).filter((n) => takesInstances(n) && n.id !== props.owner);
  const target = targets.some((n) => n.id === choice) ? choice : targets[0]?.id ?? '';

  useLive({
    types: [], pollMs: MOVE_POLL_MS, enabled: !!moving,
    refresh: async () => {
      if (moving && performance.now() > moving.until) {
        setMoving(undefined);
        setDone(`The move to ${moving.to} was requested, but ${moving.to} does not run the instance yet.`);
      } else await props.reloadOwner();
    },
  });
  useEffect(() => {
    if (!moving || props.owner !== moving.to) return;
    setMoving(undefined);
    setDone(`Moved: ${moving.to} runs the instance now.`);
  }, [props.owner, moving]);

  async function move(e: Event) {
    e.preventDefault();
    setDone('');
    const answer = await action.run(() => client.call('adminMoveInstance', { params: { key: props.instanceKey }, body: { node: target } }));
    if (answer) setMoving({ to: answer.data.to, until: performance.now() + MOVE_WAIT_MS });
    await cluster.reload();
  }

  return (
    <section class="panel" aria-labelledby="move-title">
      <h2 id="move-title">Move to another node</h2>
      <form class="inline-form narrow" onSubmit={move}>
        <label for="move-node">Move to node</label>
        <select id="move-node" value={target} disabled={!target} aria-describedby={target ? undefined : 'move-node-help'}
          onChange={(e) => setChoice(e.currentTarget.value)}>
          {targets.map((n) => <option key={n.id} value={n.id}>{n.id}</option>)}
        </select>
        <button type="submit" disabled={action.busy || !!moving || !target}>Move</button>
      </form>
      {!target && <p class="help" id="move-node-help">{cluster.data ? 'No other node takes instances now.' : 'Loading the nodes…'}</p>}
      {cluster.error && <p class="error" role="alert">{cluster.error}</p>}
      {action.error && <p class="error" role="alert">{action.error}</p>}
      {moving && <p role="status" aria-busy="true">Moving to {moving.to}…</p>}
      {done && <p class="ok" role="status">{done}</p>}
    </section>
  );
}
