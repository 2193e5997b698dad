import type { InstanceRecord, Storage } from '@parley/core';
import { copyInstance, type CopySettings, type InstanceCopyCounts, type ScanningStorage } from './copy-instance.js';
import { StorageCopyError } from './storage-copy-error.js';

/** What `copyStorage` copies, and how. */
export interface StorageCopyOptions extends CopySettings {
  source: Storage;
  /** Opens the target, called once the source passed its checks (so a refused copy never touches the target). */
  openTarget(): Promise<Storage>;
  /** Ids of the instances to copy; absent: every instance, and the server-wide state documents too. */
  instances?: readonly string[];
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
    ['instances.claimsOf', storage.instances.claimsOf], ['messages.scan', storage.messages.scan], ['media.scanIds', storage.media.scanIds],
    ['authState.scan', storage.authState.scan], ['state.listNamespaces', storage.state.listNamespaces],
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

/** Copies every document of the namespaces (each namespace read whole: state documents are small). */
async function copyState(source: ScanningStorage, target: Storage, namespaces: readonly string[]): Promise<number> {
  let documents = 0;
  for (const namespace of namespaces) {
    for (const { id, value } of await source.state.list(namespace)) {
      await target.state.put(namespace, id, value);
      documents++;
    }
  }
  return documents;
}

/**
 * Copies instances with everything they own from one storage back end to another (`parley storage
 * copy`): records with their keys, settings, webhooks and claims, messages, chats, contacts, media,
 * channel auth state (a linked WhatsApp session goes on working), state documents, the event log and
 * the paused flag of the send queue; with no instance named, the server-wide state documents too
 * (the sandbox network, subscriber cursors…). Reads in pages of `batch`, so memory holds one page
 * (and one media blob) at a time. Every write is an upsert: a re-run converges on the source.
 *
 * Not copied: idempotency keys (they expire within a day), dead letters and webhook statistics.
 * Refuses, before writing anything, back ends that cannot list their data, instances with queued
 * sends or pending webhook deliveries, and target instances that clash (a {@link StorageCopyError}).
 * The server must not run on the source meanwhile: what it writes during the copy may be missed.
 */
export async function copyStorage(options: StorageCopyOptions): Promise<StorageCopySummary> {
  const missing = missingEnumerations(options.source);
  if (missing.length > 0) throw new StorageCopyError(`the source back end (${options.source.name}) cannot list its data: it lacks ${missing.join(', ')}`, 'refused');
  const source = options.source as ScanningStorage;
  const records = await selectedRecords(source, options.instances);
  const refuse = (problems: string[]) => {
    if (problems.length > 0) throw new StorageCopyError(`nothing copied:\n  ${problems.join('\n  ')}`, 'refused');
  };
  if (records.length === 0) throw new StorageCopyError(`the source (${source.name}) holds no instance: nothing to copy`, 'refused');
  refuse(await sourceRefusals(source, records));
  const target = await options.openTarget();
  refuse(await targetRefusals(source, target, records));
  options.progress(`copying ${records.length} instance(s) from ${source.name} to ${target.name}`);
  const instances: InstanceCopyCounts[] = [];
  for (const record of records) instances.push(await copyInstance(source, target, record, options));
  const namespaces = options.instances
    ? (await Promise.all(records.map((record) => source.state.listNamespaces(`${record.id}:`)))).flat()
    : await source.state.listNamespaces('');
  const documents = await copyState(source, target, namespaces);
  await target.flush();
  options.progress(`copied ${documents} state document(s) in ${namespaces.length} namespace(s)`);
  return { instances, state: { namespaces: namespaces.length, documents } };
}
