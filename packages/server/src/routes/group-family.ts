import type { MediaInput } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { groupJidOf } from '../schemas/group.schemas.js';

/**
 * The handler body of a change to one group or community: takes the capability (its accessor
 * answers 422/409 before any side effect), runs `change` on the JID of the path parameter `id`, and
 * answers `data`: the record as it now is.
 */
export function changeAndAnswer<C extends { get(jid: string): Promise<unknown> }>(capabilityOf: (rt: InstanceRuntime) => C) {
  return async (rt: InstanceRuntime, id: string, change: (capability: C, jid: string) => Promise<void>): Promise<{ data: Awaited<ReturnType<C['get']>> }> => {
    const capability = capabilityOf(rt);
    const jid = groupJidOf(rt.addressing, id);
    await change(capability, jid);
    return { data: (await capability.get(jid)) as Awaited<ReturnType<C['get']>> };
  };
}

/**
 * The handler body of setting a group's or community's picture from a URL or data URI (`body.url`):
 * the capability is checked before the image is fetched, then the picture is set and the record
 * answered.
 */
export function setPictureAndAnswer<C extends { get(jid: string): Promise<unknown>; setPicture(jid: string, image: MediaInput): Promise<void> }>(
  ctx: ServerContext, capabilityOf: (rt: InstanceRuntime) => C,
) {
  const changed = changeAndAnswer(capabilityOf);
  return async (rt: InstanceRuntime, id: string, url: string) => {
    capabilityOf(rt);
    const image = await ctx.media.resolve(url, 'body.url', 'image', undefined, rt.record);
    return changed(rt, id, (capability, jid) => capability.setPicture(jid, image));
  };
}

/**
 * The answer of an accepted invite: `data`, the group or community joined, or `message` when the
 * join became a request an admin must approve (the instance is not a member yet).
 */
export async function joinAnswer<T extends { id: string }>(jid: string, list: () => Promise<T[]>): Promise<{ data: T } | { message: string }> {
  const joined = (await list()).find((g) => g.id === jid);
  return joined ? { data: joined } : { message: `join request sent to ${jid}: an admin must approve it` };
}
