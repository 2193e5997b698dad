import { CapabilityNotSupportedError } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, messageResponse, s } from '../http/schema.js';
import { keyParams } from '../schemas/common.schemas.js';

type Scope = InstanceRuntime;
const tag = 'Instance';

/** Spec 4.1 `POST /{key}/instance/mongodb`: the instance's history goes to the operator's MongoDB. */
export function externalDatabaseRoutes(ctx: ServerContext): RouteDefinition[] {
  const connector = () => {
    const found = ctx.externalDatabase;
    if (!found) throw new CapabilityNotSupportedError('this server', 'external MongoDB databases', 'configure a plugin that provides an external-database connector');
    return found;
  };
  return [
    defineRoute<unknown, unknown, { uri: string; dbName: string }, Scope>({
      method: 'post', path: '/{key}/instance/mongodb', operationId: 'attachMongodb', tag, auth: 'instance', params: keyParams,
      summary: 'Attach an external MongoDB: this instance\'s messages, chats and contacts are kept there from now on',
      description: 'The connection is tested first (bounded time-out); a failure answers 502 with the credentials redacted and changes nothing. The URI is stored as a secret and never answered. History already in the main storage is not moved.',
      body: s.object({
        uri: s.string({ minLength: 10, maxLength: 2048, pattern: '^mongodb(\\+srv)?://', examples: ['mongodb://127.0.0.1:27017'], description: 'mongodb:// or mongodb+srv:// URI, credentials allowed.' }),
        dbName: s.string({ minLength: 1, maxLength: 63, pattern: '^[^/\\\\. "$*<>:|?]+$' }),
      }, ['uri', 'dbName']),
      response: dataResponse(s.object({ dbName: s.string(), connected: s.boolean() })), errors: [422, 502],
      handler: async ({ scope, body }) => {
        const found = connector();
        const store = await found.connect({ uri: body.uri, dbName: body.dbName });
        await ctx.bus.run(scope.id, async () => {
          await ctx.storage.attach(scope.id, store);
          await ctx.registry.update(scope.id, { externalDatabase: { kind: found.kind, uri: body.uri, dbName: body.dbName } });
        });
        return { data: { dbName: body.dbName, connected: true } };
      },
    }),
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/instance/mongodb', operationId: 'detachMongodb', tag, auth: 'instance', params: keyParams,
      summary: 'Detach the external MongoDB (extension): history is kept in the main storage from now on', response: messageResponse,
      handler: async ({ scope }) => {
        await ctx.bus.run(scope.id, async () => {
          await ctx.storage.detach(scope.id);
          await ctx.registry.update(scope.id, { externalDatabase: undefined });
        });
        return { message: 'External database detached' };
      },
    }),
  ];
}
