import { ParleyApiError, type OperationResponse } from '@parley/client';
import { CliError, ExitCode } from './exit-codes.js';
import type { CliContext } from './settings.js';

/** An instance as the admin API describes it. */
export type InstanceRecord = OperationResponse<'adminGetInstance'>['data'];

/** The instance a command acts on: its key, and its record when the admin API was asked. */
export interface ResolvedInstance {
  key: string;
  record?: InstanceRecord;
}

/** Every instance, all pages of `GET /admin/instances` (1,000 a page) in creation order. */
export async function listAllInstances(ctx: CliContext): Promise<InstanceRecord[]> {
  const all: InstanceRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await ctx.client.call('adminListInstances', { query: { limit: 1000, ...(cursor ? { cursor } : {}) } });
    all.push(...page.data);
    cursor = page.cursor;
  } while (cursor);
  return all;
}

/**
 * Finds the instance a command names by its public id, its key or its name. With an admin token the
 * admin API answers: `GET /admin/instances/{ref}` for an id or key, else a scan of the list for the
 * name (a name two instances share, possible only in a store written before names were unique, is
 * refused: give the id or the key). Without an admin token the reference is
 * taken as the instance key, the instance API's own credential.
 */
export async function resolveInstance(ctx: CliContext, ref: string): Promise<ResolvedInstance> {
  if (!ref) throw new CliError('the instance must not be empty', ExitCode.usage);
  if (ctx.tokenSource === 'none') return { key: ref };
  try {
    const { data } = await ctx.client.call('adminGetInstance', { params: { key: ref } });
    return { key: data.key, record: data };
  } catch (err) {
    if (!(err instanceof ParleyApiError) || err.status !== 404) throw err;
  }
  const named = (await listAllInstances(ctx)).filter((instance) => instance.name === ref);
  if (named.length === 0) throw new CliError(`no instance has the id, key or name ${JSON.stringify(ref)}`, ExitCode.notFound);
  if (named.length > 1) {
    throw new CliError(`${named.length} instances are named ${JSON.stringify(ref)} (${named.map((i) => i.id).join(', ')}): give the id or the key`, ExitCode.usage);
  }
  return { key: named[0]!.key, record: named[0] };
}

/** How an instance is named in messages: `ins_… (name)`. */
export function describeInstance(instance: ResolvedInstance): string {
  if (!instance.record) return 'the instance';
  return instance.record.name ? `${instance.record.id} (${instance.record.name})` : instance.record.id;
}
