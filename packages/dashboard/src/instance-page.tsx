import { useState } from 'preact/hooks';
import { accountText, ownerText } from './instances.js';
import { ConnectPanel } from './connect.js';
import { useSession } from './context.js';
import { useLive } from './live.js';
import { MessagesPanel } from './messages.js';
import { MoveInstance } from './move-instance.js';
import { InstanceSecrets } from './secrets.js';
import { HealthText, StateBadge } from './state-badge.js';
import { useAction, useLoad } from './use-load.js';
import { WebhooksPanel } from './webhooks.js';

export type InstanceTab = 'connect' | 'webhooks' | 'messages';

const TAB_LABELS: Record<InstanceTab, string> = { connect: 'Connect', webhooks: 'Webhooks', messages: 'Messages' };

/** One instance: its state, the instance actions, and the Connect, Webhooks and Messages tabs. */
export function InstancePage(props: { instanceId: string; tab: InstanceTab }) {
  const { client } = useSession();
  const admin = useLoad(() => client.call('adminGetInstance', { params: { key: props.instanceId } }).then((r) => r.data), [client, props.instanceId]);
  const key = admin.data?.key;
  const record = useLoad(async () => key ? (await client.instance(key).call('getInstance')).instance : undefined, [client, key]);
  // The admin record is read again too: on a cluster node it names the owner, which moves, drains and failovers change.
  useLive({ instance: admin.data?.id, types: ['connection', 'health'], refresh: () => Promise.all([record.reload(), admin.reload()]), pollMs: 2000, enabled: !!key });
  const action = useAction();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [done, setDone] = useState('');

  if (admin.error && !admin.data) return <><h1>Instance</h1><p class="error" role="alert">{admin.error}</p><p><a href="#/">Back to the instances</a></p></>;
  if (!admin.data || !key) return <p aria-busy="true">Loading the instance…</p>;
  const instance = admin.data;
  const status = record.data?.connection?.status;
  const lastError = status !== 'open' ? record.data?.connection?.lastError : undefined;

  async function act(label: string, call: () => Promise<{ message?: string }>) {
    setDone('');
    const answer = await action.run(call);
    if (answer) setDone(answer.message ?? `${label}: done`);
    await record.reload();
  }

  return (
    <>
      <p><a href="#/">← Instances</a></p>
      <h1>{instance.name || instance.id}</h1>
      <dl class="facts">
        <div><dt>Channel</dt><dd>{instance.channel}</dd></div>
        <div><dt>Connection</dt><dd id="instance-state"><StateBadge status={status} /></dd></div>
        <div><dt>Health</dt><dd><HealthText id="instance-health" status={status} health={record.data?.health ?? instance.health} /></dd></div>
        <div><dt>Account</dt><dd>{accountText({ admin: instance, record: record.data })}</dd></div>
        <div><dt>Public id</dt><dd><code>{instance.id}</code></dd></div>
        {instance.owner !== undefined && <div><dt>Node</dt><dd id="instance-owner">{ownerText(instance.owner)}</dd></div>}
      </dl>
      {lastError && <p class="error" id="connection-error">Last connection error: {lastError.message}{lastError.cause ? ` (${lastError.cause})` : ''}. The channel keeps trying.</p>}
      <InstanceSecrets instanceKey={key} webhookSecret={instance.webhookSecret} />
      {admin.error && <p class="error" role="alert">{admin.error}</p>}
      {record.error && <p class="error" role="alert">{record.error}</p>}
      <div class="actions" role="group" aria-label="Instance actions">
        <button type="button" class="secondary" disabled={action.busy} onClick={() => act('Restart', () => client.instance(key).call('restartInstance'))}>Restart</button>
        <button type="button" class="secondary" disabled={action.busy} onClick={() => act('Log out', () => client.instance(key).call('logoutInstance'))}>Log out</button>
        {!confirmDelete
          ? <button type="button" class="danger" disabled={action.busy} onClick={() => setConfirmDelete(true)}>Delete…</button>
          : (
            <span class="confirm" role="group" aria-label="Confirm deletion">
              <span>Delete {instance.name || instance.id} and all its data?</span>
              <button type="button" class="danger" disabled={action.busy} onClick={async () => {
                const answer = await action.run(() => client.call('adminDeleteInstance', { params: { key } }));
                if (answer) location.hash = '#/';
              }}>Delete for good</button>
              <button type="button" class="secondary" autoFocus onClick={() => setConfirmDelete(false)}>Cancel</button>
            </span>
          )}
      </div>
      {action.error && <p class="error" role="alert">{action.error}</p>}
      {done && <p class="ok" role="status">{done}</p>}
      {/* Only a cluster node names an owner. */}
      {instance.owner !== undefined && <MoveInstance instanceKey={key} owner={instance.owner} reloadOwner={admin.reload} />}
      <nav class="tabs" aria-label="Instance sections">
        {(Object.keys(TAB_LABELS) as InstanceTab[]).map((tab) => (
          <a key={tab} href={`#/instances/${encodeURIComponent(instance.id)}/${tab}`} aria-current={props.tab === tab ? 'page' : undefined}>{TAB_LABELS[tab]}</a>
        ))}
      </nav>
      <section aria-label={TAB_LABELS[props.tab]} class="tab-body">
        {props.tab === 'connect' && <ConnectPanel instanceKey={key} instanceId={instance.id} channel={instance.channel} record={record.data} onChanged={record.reload} />}
        {props.tab === 'webhooks' && <WebhooksPanel instanceKey={key} />}
        {props.tab === 'messages' && <MessagesPanel instanceKey={key} instanceId={instance.id} />}
      </section>
    </>
  );
}
