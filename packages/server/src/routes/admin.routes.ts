import type { InstanceRecord } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, okResponse, s } from '../http/schema.js';
import { webhookSettingsSchema } from '../schemas/common.schemas.js';
import { adminView, InstanceAdmin, type CreateInstanceInput } from '../services/instance-admin.js';

const tag = 'Admin';
/** Paging of the instance list: a default page holds every instance of a small deployment. */
const ADMIN_PAGE = { defaultLimit: 1000, maxLimit: 1000 } as const;

const adminInstanceSchema = s.openObject({
  id: s.string(), key: s.string(), name: s.string(), channel: s.string(), createdAt: s.integer(), phoneConnected: s.boolean(),
  user: s.nullable(s.anyObject()), health: s.string(), webhookSecret: s.string(), webhook: s.anyObject(), options: s.anyObject(),
  linkedChannels: s.array(s.string()),
  owner: s.nullable(s.string({ description: 'Cluster nodes only: id of the node running the instance (null while it has no owner). Absent on a single server.' })),
}, ['id', 'key', 'name', 'channel', 'createdAt', 'phoneConnected', 'webhookSecret']);

/** The admin views of these instances, each with its `owner` on a cluster node (absent on a single server). */
async function adminViews(ctx: ServerContext, records: InstanceRecord[]): Promise<Record<string, unknown>[]> {
  const owners = ctx.cluster ? await ctx.cluster.store.owners(records.map((r) => r.id)) : undefined;
  return records.map((record) => ({ ...adminView(record, ctx.host.publicUrl), ...(owners ? { owner: owners.get(record.id)?.node ?? null } : {}) }));
}

/** Operator API: instance issuance (spec 5 leaves it to the operator). Every route needs the admin token. */
export function adminRoutes(ctx: ServerContext): RouteDefinition[] {
  const admin = new InstanceAdmin(ctx);
  return [
    defineRoute<unknown, unknown, CreateInstanceInput>({
      method: 'post', idempotent: true, path: '/admin/instances', operationId: 'adminCreateInstance', tag, auth: 'admin',
      summary: 'Create an instance; answers its secret key and webhook signing secret',
      body: s.object({
        channel: s.string({ minLength: 1, maxLength: 64, description: 'Main-channel driver: `whatsapp` (Baileys) or `sandbox`. Default from the config.' }),
        name: s.string({
          maxLength: 200,
          description: 'Unique on the server, compared after Unicode NFC, trimming and lower-casing: a name another instance holds answers 409 `name_taken`. Empty or absent: unnamed (any number may be).',
        }),
        webhook: webhookSettingsSchema,
        options: s.anyObject({ description: 'Driver options (sandbox: `number`).' }),
      }),
      response: dataResponse(adminInstanceSchema), errors: [409],
      handler: async ({ body }) => ({ data: adminView(await admin.create(body), ctx.host.publicUrl) }),
    }),
    defineRoute<unknown, { limit: number; cursor?: string }>({
      method: 'get', path: '/admin/instances', operationId: 'adminListInstances', tag, auth: 'admin',
      summary: 'Instances in creation order, one page at a time',
      description: `\`limit\`: 1 to ${ADMIN_PAGE.maxLimit}, default ${ADMIN_PAGE.defaultLimit}. Pass the answer's \`cursor\` to get the next page; `
        + '`cursor` is absent on the last page. A page costs its size, not the number of instances.',
      query: s.object({
        limit: s.integer({ minimum: 1, maximum: ADMIN_PAGE.maxLimit, default: ADMIN_PAGE.defaultLimit }),
        cursor: s.string({ pattern: '^[0-9]{1,15}$', description: 'The `cursor` of the previous page.' }),
      }),
      response: okResponse({ data: s.array(adminInstanceSchema), cursor: s.string({ description: 'Token of the next page; absent on the last page.' }) }, ['data']),
      handler: async ({ query }) => {
        const page = await ctx.storage.instances.listPage({ limit: query.limit, ...(query.cursor !== undefined ? { after: query.cursor } : {}) });
        return { data: await adminViews(ctx, page.items), ...(page.next !== undefined ? { cursor: page.next } : {}) };
      },
    }),
    defineRoute({
      method: 'get', path: '/admin/channels', operationId: 'adminListChannels', tag, auth: 'admin',
      summary: 'The channels this server drives, and the one an instance is created on when none is named',
      description: '`default`: the configured `defaultChannel`, what `POST /admin/instances` uses without `channel`. `channels`: every registered '
        + 'driver with its `role` (`main`: an instance runs on it; `social`: linked beside one) and its wire `provider`.',
      response: dataResponse(s.object({
        default: s.string(),
        channels: s.array(s.object({ name: s.string(), role: s.enum(['main', 'social']), provider: s.string() }, ['name', 'role', 'provider'])),
      }, ['default', 'channels'])),
      handler: async () => ({
        data: {
          default: ctx.config.defaultChannel,
          channels: [...ctx.drivers.values()].map((d) => ({ name: d.name, role: d.role, provider: d.channel })),
        },
      }),
    }),
    defineRoute<{ key: string }>({
      method: 'get', path: '/admin/instances/{key}', operationId: 'adminGetInstance', tag, auth: 'admin',
      summary: 'One instance, by key or public id', params: s.object({ key: s.string({ minLength: 1 }) }, ['key']),
      response: dataResponse(adminInstanceSchema), errors: [404],
      handler: async ({ params }) => ({ data: (await adminViews(ctx, [(await admin.find(params.key)).record]))[0] }),
    }),
    defineRoute<{ key: string }>({
      method: 'delete', path: '/admin/instances/{key}', operationId: 'adminDeleteInstance', tag, auth: 'admin',
      summary: 'Log out and delete an instance with all its data (by key or public id)',
      params: s.object({ key: s.string({ minLength: 1 }) }, ['key']),
      response: okResponse({ message: s.string() }), errors: [404],
      handler: async ({ params }) => {
        await admin.delete(params.key);
        return { message: 'Instance deleted' };
      },
    }),
  ];
}
