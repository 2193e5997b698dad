import type { ParleyClient } from '@parley/client';
import { useState } from 'preact/hooks';
import { phoneOf, type AdminInstance, type InstanceRecord } from './api.js';
import { useSession } from './context.js';
import { CreateInstanceForm } from './create-instance.js';
import { useLive } from './live.js';
import { HealthText, StateBadge } from './state-badge.js';
import { useLoad } from './use-load.js';

/** An instance of the list with what its own record says about its connection. */
export interface InstanceRow {
  admin: AdminInstance;
  record?: InstanceRecord;
}

/** How many instance records are read at once. */
const PARALLEL_READS = 8;
/** Instances per page of the list (each one's record is read on every reload). */
const PAGE_SIZE = 50;

/** One page of the instance list, and the cursor of the next page. */
interface Page {
  rows: InstanceRow[];
  next?: string;
}

/** A page of the admin list, each instance's record read through its own key (connection state and health live there). */
async function loadPage(client: ParleyClient, cursor: string | undefined): Promise<Page> {
  const page = await client.call('adminListInstances', { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } });
  const rows: InstanceRow[] = page.data.map((admin) => ({ admin }));
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++]!;
      row.record = await client.instance(row.admin.key).call('getInstance').then((r) => r.instance, () => undefined);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_READS, rows.length) }, worker));
  return { rows, next: page.cursor };
}

/** The account of an instance: its phone number and name, and the social channels linked to it. */
export function accountText(row: InstanceRow): string {
  const user = row.record?.user ?? (row.admin.user as { id?: string; name?: string } | null | undefined);
  const parts: string[] = [];
  if (user?.id) parts.push(`+${phoneOf(user.id)}${user.name ? ` (${user.name})` : ''}`);
  for (const channel of row.admin.linkedChannels ?? []) parts.push(channel);
  return parts.join(', ') || '—';
}

/** The node running an instance, as a cluster node's admin API names it (null while it has none). */
export function ownerText(owner: string | null | undefined): string {
  return owner ?? 'none (being placed)';
}

/** The instances, a page at a time and live, and the form that creates one. */
export function InstanceList() {
  const { client } = useSession();
  // The cursors of the pages shown so far: the last one is the current page (undefined: the first).
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useLoad(() => loadPage(client, cursor), [client, cursor]);
  const rows = page.data?.rows;
  useLive({ types: ['connection', 'health', 'qrcode'], refresh: page.reload, pollMs: 3000 });
  const first = (cursors.length - 1) * PAGE_SIZE + 1;
  // A cluster node names each instance's owner (null while none); a single server has no such member.
  const clustered = rows?.some((row) => row.admin.owner !== undefined) ?? false;

  return (
    <>
      <h1>Instances</h1>
      {page.error && <p class="error" role="alert">{page.error}</p>}
      {!rows ? <p aria-busy="true">Loading instances…</p> : rows.length === 0 && cursors.length === 1 ? <p>No instance yet: create one below.</p> : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Instances table">
          <table class="instances">
            <thead>
              <tr><th scope="col">Name</th><th scope="col">Channel</th><th scope="col">Connection</th><th scope="col">Health</th><th scope="col">Account</th>{clustered && <th scope="col">Node</th>}</tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.admin.id} data-instance={row.admin.id}>
                  <th scope="row"><a href={`#/instances/${encodeURIComponent(row.admin.id)}/connect`}>{row.admin.name || row.admin.id}</a></th>
                  <td data-label="Channel">{row.admin.channel}</td>
                  <td data-label="Connection"><StateBadge status={row.record?.connection?.status} /></td>
                  <td data-label="Health"><HealthText status={row.record?.connection?.status} health={row.record?.health ?? row.admin.health} /></td>
                  <td data-label="Account">{accountText(row)}</td>
                  {clustered && <td data-label="Node">{ownerText(row.admin.owner)}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(cursors.length > 1 || page.data?.next) && (
        <nav class="pager" aria-label="Instance pages">
          <button type="button" class="secondary" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>Previous page</button>
          <span>Instances {first}–{first + Math.max(0, (rows?.length ?? 0) - 1)}</span>
          <button type="button" class="secondary" disabled={!page.data?.next} onClick={() => setCursors([...cursors, page.data!.next])}>Next page</button>
        </nav>
      )}
      <CreateInstanceForm onCreated={(created) => { location.hash = `#/instances/${encodeURIComponent(created.id)}/connect`; }} />
    </>
  );
}
