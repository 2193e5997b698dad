import type { ParleyClient } from '@parley/client';
import { listAllInstances, phoneOf, type AdminInstance, type InstanceRecord } from './api.js';
import { useSession } from './context.js';
import { CreateInstanceForm } from './create-instance.js';
import { useLive } from './live.js';
import { StateBadge } from './state-badge.js';
import { useLoad } from './use-load.js';

/** An instance of the list with what its own record says about its connection. */
export interface InstanceRow {
  admin: AdminInstance;
  record?: InstanceRecord;
}

/** How many instance records are read at once. */
const PARALLEL_READS = 8;

/** The admin list, each instance's record read through its own key (connection state and health live there). */
export async function loadRows(client: ParleyClient): Promise<InstanceRow[]> {
  const admins = await listAllInstances(client);
  const rows: InstanceRow[] = admins.map((admin) => ({ admin }));
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++]!;
      row.record = await client.instance(row.admin.key).call('getInstance').then((r) => r.instance, () => undefined);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, rows.length) }, worker));
  return rows;
}

/** The account of an instance: its phone number and name, and the social channels linked to it. */
export function accountText(row: InstanceRow): string {
  const user = row.record?.user ?? (row.admin.user as { id?: string; name?: string } | null | undefined);
  const parts: string[] = [];
  if (user?.id) parts.push(`+${phoneOf(user.id)}${user.name ? ` (${user.name})` : ''}`);
  for (const channel of row.admin.linkedChannels ?? []) parts.push(channel);
  return parts.join(', ') || '—';
}

/** Every instance, live, and the form that creates one. */
export function InstanceList() {
  const { client } = useSession();
  const rows = useLoad(() => loadRows(client), [client]);
  useLive({ types: ['connection', 'health', 'qrcode'], refresh: rows.reload, pollMs: 3000 });

  return (
    <>
      <h1>Instances</h1>
      {rows.error && <p class="error" role="alert">{rows.error}</p>}
      {!rows.data ? <p aria-busy="true">Loading instances…</p> : rows.data.length === 0 ? <p>No instance yet: create one below.</p> : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Instances table">
          <table class="instances">
            <thead>
              <tr><th scope="col">Name</th><th scope="col">Channel</th><th scope="col">Connection</th><th scope="col">Health</th><th scope="col">Account</th></tr>
            </thead>
            <tbody>
              {rows.data.map((row) => (
                <tr key={row.admin.id} data-instance={row.admin.id}>
                  <th scope="row"><a href={`#/instances/${encodeURIComponent(row.admin.id)}/connect`}>{row.admin.name || row.admin.id}</a></th>
                  <td>{row.admin.channel}</td>
                  <td><StateBadge status={row.record?.connection?.status} /></td>
                  <td>{row.record?.health ?? row.admin.health ?? '—'}</td>
                  <td>{accountText(row)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CreateInstanceForm onCreated={(created) => { location.hash = `#/instances/${encodeURIComponent(created.id)}/connect`; }} />
    </>
  );
}
