import type { InstanceRecord } from '@parley/core';
import type { InstanceRuntime } from './instance-runtime.js';
import { userView } from './profile-picture.js';

/** Public view of the social links: ids and names, never tokens. */
export function linksView(record: InstanceRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record.links).map(([channel, link]) => [channel, {
    accountId: link!.accountId, ...(link!.username ? { username: link!.username } : {}), linkedAt: link!.linkedAt,
  }]));
}

/**
 * The instance record of spec 2.1 (GET /{key}/instance), with Parley's documented extensions.
 * `publicUrl` is the server's public base URL, for the stable picture URL of `user.imageProfile`.
 */
export function instanceView(runtime: InstanceRuntime, publicUrl: string): Record<string, unknown> {
  const r = runtime.record;
  const failure = runtime.main.capabilities.connection?.state().failure;
  return {
    id: r.id,
    name: r.name,
    channel: r.driver,
    receive_status_message: r.flags.receiveStatusMessage,
    save_media: r.flags.saveMedia,
    receive_presence: r.flags.receivePresence,
    permission: r.flags.permission,
    mark_messages: r.flags.markMessages,
    blocked: r.flags.blocked,
    user: userView(runtime.user(), publicUrl, r.key),
    phoneConnected: runtime.isConnected(),
    webhook: { ...r.webhook },
    businessProfile: {
      wid: r.businessProfile?.wid ?? r.user?.id ?? '',
      description: r.businessProfile?.description ?? '',
      website: r.businessProfile?.website ?? [],
      category: r.businessProfile?.category ?? '',
    },
    health: r.health,
    connection: runtime.connection(),
    ...(failure ? { failure } : {}),
    links: linksView(r),
  };
}
