import type { InstanceRecord, Storage } from '@parley/core';
import { SERVER_PRESENCE_NAMESPACE } from '../presence/presence-record.js';
import { copyInstance, eachPage, type CopySettings, type InstanceCopyCounts, type ScanningStorage } from './copy-instance.js';
import { presenceRecords } from '../presence/presence-record.js';
import { describeServer, watchServers } from '../presence/presence-watch.js';
import { StorageCopyError } from './storage-copy-error.js';

/** What `copyStorage` copies, and how. */
export interface StorageCopyOptions extends CopySettings {
  source: Storage;
  /** Opens the target, called once the source passed its checks (so a refused copy never touches the target). */
  openTarget(): Promise<Storage>;
  /** Ids of the instances to copy; absent: every instance, and the server-wide state documents too. */
  instances?: readonly string[];
  /** How the copy waits while it watches servers' presence records (default: a timer; tests pass their own). */
  sleep?(ms: number): Promise<void>;
}

/** What a copy wrote. */
export interface StorageCopySummary {
  instances: InstanceCopyCounts[];
  /** State documents copied, and the namespaces they were in (the instances' own, and the server-wide ones of a whole copy). */
  state: { namespaces: number; documents: number };
}

/** The enumerations of the contract a back end lacks (`messages.scan`…), by name. */
function missingEnumerations(storage: Storage): string[] {
  const present: [string, unknown][] = [
    ['instances.claimsOf', storage.instances.claimsOf], ['messages.scan', storage.messages.scan], ['chats.scan', storage.chats.scan],
    ['contacts.scan', storage.contacts.scan], ['media.scanIds', storage.media.scanIds], ['authState.scan', storage.authState.scan],
    ['state.listNamespaces', storage.state.listNamespaces], ['state.scan', storage.state.scan],
  ];
  return present.filter(([, method]) => typeof method !== 'function').map(([name]) => name);
}

/** Every instance record of the source, page by page, or those named (all of them must exist). */
async function selectedRecords(source: Storage, ids: readonly string[] | undefined): Promise<InstanceRecord[]> {
  if (ids) {
    const records = await Promise.all(ids.map((id) => source.instances.get(id)));
    const unknown = ids.filter((_, i) => !records[i]);
    if (unknown.length > 0) throw new StorageCopyError(`no such instance in the source: ${unknown.join(', ')}`, 'usage');
    return records as InstanceRecord[];
  }
  const records: InstanceRecord[] = [];
  let after: string | undefined;
  do {
    const page = await source.instances.listPage({ limit: 500, ...(after === undefined ? {} : { after }) });
    records.push(...page.items);
    after = page.next;
  } while (after !== undefined);
  return records;
}

/**
 * What would make the copy wrong in the source: webhook deliveries or sends still queued (the server
 * must deliver or cancel them first: a copy would deliver them twice, from both stores, or lose them).
 */
async function sourceRefusals(source: ScanningStorage, records: readonly InstanceRecord[]): Promise<string[]> {
  const problems: string[] = [];
  for (const record of records) {
    const [sends, stats] = await Promise.all([source.outbound.count(record.id), source.deliveries.stats(record.id)]);
    if (sends > 0) problems.push(`${record.id} has ${sends} queued send(s) in the source: let the server send them (or cancel them) first`);
    if (stats.totalPending > 0) problems.push(`${record.id} has ${stats.totalPending} webhook delivery(ies) pending in the source: let the server deliver them first`);
  }
  return problems;
}

/** Target instances that clash with the copied ones: another instance with the same key, or holding one of their claims. */
async function targetRefusals(source: ScanningStorage, target: Storage, records: readonly InstanceRecord[]): Promise<string[]> {
  const problems: string[] = [];
  for (const record of records) {
    const byKey = await target.instances.findByKey(record.key);
    if (byKey && byKey.id !== record.id) problems.push(`${record.id}: the target's instance ${byKey.id} has the same key`);
    for (const claim of await source.instances.claimsOf(record.id)) {
      const holder = await target.instances.claimHolder(claim.namespace, claim.value);
      if (holder !== null && holder !== record.id) problems.push(`${record.id}: ${claim.namespace} ${claim.value} is held by the target's instance ${holder}`);
    }
  }
  return problems;
}

/** Copies every document of the namespaces, in pages of `batch`; the servers' presence records stay where they are. */
async function copyState(source: ScanningStorage, target: Storage, namespaces: readonly string[], batch: number): Promise<number> {
  let documents = 0;
  for (const namespace of namespaces) {
    documents += await eachPage((request) => source.state.scan(namespace, request), batch, async (page) => {
      for (const { id, value } of page) await target.state.put(namespace, id, value);
    });
  }
  return documents;
}

/**
 * Refuses a store a server holds (its presence record changes while watched, see `watchServers`): the
 * copy would miss what a server on the source writes meanwhile, and mix with what one on the target
 * writes. Answers the ids of stale records (servers that died without clearing theirs), reported.
 */
async function refuseRunningServers(side: 'source' | 'target', storage: Storage, options: StorageCopyOptions): Promise<Set<string>> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const { running, stale } = await watchServers(storage.state, {
    sleep, untilRunning: true,
    watching: (records, windowMs) => options.progress(`the ${side} holds ${records.length} server presence record(s): `
      + `watching them for ${Math.ceil(windowMs / 1000)} s to tell a running server from a stopped one`),
  });
  if (running.length > 0) {
    throw new StorageCopyError(`nothing copied: a Parley server is running on the ${side} (${storage.name}): ${running.map(describeServer).join('; ')}. `
      + 'Stop it (SIGTERM or Ctrl-C: it stops gracefully and clears its presence record; on a cluster, every node), then run the copy again', 'refused');
  }
  for (const sighting of stale) {
    options.progress(`the ${side}'s presence record of a server (${describeServer(sighting)}) did not change: a server that stopped without clearing it (killed or crashed); copying`);
  }
  return new Set(stale.map((sighting) => sighting.id));
}

/** After a copy: a presence record that was not there (stale) before is a server that started meanwhile, whose writes the copy may have missed. */
async function refuseServersStarted(side: 'source' | 'target', storage: Storage, stale: Set<string>): Promise<void> {
  const started = [...await presenceRecords(storage.state)].filter(([id]) => !stale.has(id)).map(([id, record]) => ({ id, record }));
  if (started.length > 0) {
    throw new StorageCopyError(`a Parley server started on the ${side} (${storage.name}) while copying: ${started.map(describeServer).join('; ')}. `
      + 'What it wrote meanwhile may be missing from the target: stop it and run the copy again (a re-run converges)', 'refused');
  }
}

/**
 * Copies instances with everything they own from one storage back end to another (`parley storage
 * copy`): records with their keys, settings, webhooks and claims, messages, chats, contacts, media,
 * channel auth state (a linked WhatsApp session goes on working), state documents, the event log and
 * the paused flag of the send queue; with no instance named, the server-wide state documents too
 * (the sandbox network, subscriber cursors…). Reads in keyset pages of `batch`, so memory holds one
 * page (and one media blob, streamed where both stores can) at a time. Every write is an upsert: a
 * re-run converges on the source. Media is left where it is when both sides use one media store.
 *
 * Not copied: idempotency keys (they expire within a day), dead letters, webhook statistics and the
 * servers' presence records. Refuses, before writing anything, a store a server holds (the source or
 * the target: see `refuseRunningServers`), back ends that cannot list their data, instances with
 * queued sends or pending webhook deliveries, and target instances that clash (a
 * {@link StorageCopyError}); and, after copying, a server that started on either side meanwhile.
 */
export async function copyStorage(options: StorageCopyOptions): Promise<StorageCopySummary> {
  const missing = missingEnumerations(options.source);
  if (missing.length > 0) throw new StorageCopyError(`the source back end (${options.source.name}) cannot list its data: it lacks ${missing.join(', ')}`, 'refused');
  const source = options.source as ScanningStorage;
  const staleOnSource = await refuseRunningServers('source', source, options);
  const records = await selectedRecords(source, options.instances);
  const refuse = (problems: string[]) => {
    if (problems.length > 0) throw new StorageCopyError(`nothing copied:\n  ${problems.join('\n  ')}`, 'refused');
  };
  if (records.length === 0) throw new StorageCopyError(`the source (${source.name}) holds no instance: nothing to copy`, 'refused');
  refuse(await sourceRefusals(source, records));
  const target = await options.openTarget();
  const staleOnTarget = await refuseRunningServers('target', target, options);
  refuse(await targetRefusals(source, target, records));
  options.progress(`copying ${records.length} instance(s) from ${source.name} to ${target.name}`);
  const instances: InstanceCopyCounts[] = [];
  for (const record of records) instances.push(await copyInstance(source, target, record, options));
  const namespaces = (options.instances
    ? (await Promise.all(records.map((record) => source.state.listNamespaces(`${record.id}:`)))).flat()
    : await source.state.listNamespaces('')).filter((namespace) => namespace !== SERVER_PRESENCE_NAMESPACE);
  const documents = await copyState(source, target, namespaces, options.batch);
  await target.flush();
  options.progress(`copied ${documents} state document(s) in ${namespaces.length} namespace(s)`);
  await refuseServersStarted('source', source, staleOnSource);
  await refuseServersStarted('target', target, staleOnTarget);
  return { instances, state: { namespaces: namespaces.length, documents } };
}
