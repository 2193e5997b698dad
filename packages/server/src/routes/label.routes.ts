import { normalizeAddress, NotFoundError } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, messageResponse, s } from '../http/schema.js';
import { channelSlots } from '../schemas/channel-slots.js';
import { keyAnd, keyParams } from '../schemas/common.schemas.js';
import { chatSchema } from '../schemas/message.schemas.js';
import { connectedCapability } from './instance-guards.js';
import { settledChat } from './stored-chat.js';

type Scope = InstanceRuntime;
/** An address on the main channel, as its addressing states it. */
const recipient = channelSlots.mainAddress();
const tag = 'Labels';

const labelId = s.string({ minLength: 1, maxLength: 64, description: 'Label id.' });
const color = s.integer({ minimum: 0, maximum: 19, description: 'Index in WhatsApp\'s label palette, 0–19.' });
const labelMembers = { id: s.string(), name: s.string(), color };
/** A label (spec 2.9). */
const labelSchema = s.openObject(labelMembers, ['id', 'name', 'color']);

/** Spec 4.7: labels (WhatsApp Business) and the chats carrying them. */
export function labelRoutes(ctx: ServerContext): RouteDefinition[] {
  const labels = (rt: Scope) => connectedCapability(rt, 'labels');
  return [
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/labels', operationId: 'listLabels', tag, auth: 'instance', params: keyParams,
      summary: 'Labels of the account', response: dataResponse(s.array(labelSchema)), errors: [409, 422],
      handler: async ({ scope }) => ({ data: await labels(scope).list() }),
    }),
    defineRoute<unknown, unknown, { name: string; color?: number }, Scope>({
      method: 'post', idempotent: true, path: '/{key}/labels', operationId: 'createLabel', tag, auth: 'instance', params: keyParams,
      summary: 'Create a label',
      description: 'Answers `data`: the new label. `color` (extension) is an index in WhatsApp\'s palette, 0–19; without it the label '
        + 'takes the next palette color. Names are unique (409 `label_exists`); an account has at most 20 labels (409 `label_limit`).',
      body: s.object({ name: s.text(100), color }, ['name']),
      response: dataResponse(labelSchema), errors: [409, 422],
      handler: async ({ scope, body }) => ({ data: await labels(scope).create(body.name, body.color) }),
    }),
    defineRoute<{ labelId: string }, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/labels/{labelId}', operationId: 'getLabel', tag, auth: 'instance', params: keyAnd({ labelId }),
      summary: 'A label and the chats carrying it',
      description: 'Answers `data`: the label plus `chats`, the JIDs of the chats carrying it. Unknown label: 404 `label_not_found`.',
      response: dataResponse(s.openObject({ ...labelMembers, chats: s.array(s.string()) }, ['id', 'name', 'color', 'chats'])),
      errors: [404, 409, 422],
      handler: async ({ scope, params }) => {
        const capability = labels(scope);
        const chats = await capability.chats(params.labelId);
        const label = (await capability.list()).find((l) => l.id === params.labelId);
        if (!label) throw new NotFoundError(`label ${params.labelId}`, 'label_not_found');
        return { data: { ...label, chats } };
      },
    }),
    defineRoute<{ labelId: string }, unknown, { to: string }, Scope>({
      method: 'post', path: '/{key}/labels/{labelId}', operationId: 'addLabelToChat', tag, auth: 'instance', params: keyAnd({ labelId }),
      summary: 'Add a label to a chat',
      description: 'Answers `data`: the chat, whose `labels` lists its label ids. Unknown label: 404 `label_not_found`.',
      body: s.object({ to: recipient }, ['to']),
      response: dataResponse(chatSchema), errors: [404, 409, 422],
      handler: async ({ scope, params, body }) => {
        const jid = normalizeAddress(scope.addressing, body.to, 'body.to');
        await labels(scope).addToChat(params.labelId, jid);
        return { data: await settledChat(ctx, scope.id, jid) };
      },
    }),
    defineRoute<{ labelId: string; number: string }, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/labels/{labelId}/chat/{number}', operationId: 'removeLabelFromChat', tag, auth: 'instance',
      params: keyAnd({ labelId, number: recipient }),
      summary: 'Remove a label from a chat',
      description: 'Answers `message`. Unknown label: 404 `label_not_found`; a chat without the label: 404 `label_not_on_chat`.',
      response: messageResponse, errors: [404, 409, 422],
      handler: async ({ scope, params }) => {
        const jid = normalizeAddress(scope.addressing, params.number, 'path.number');
        await labels(scope).removeFromChat(params.labelId, jid);
        await ctx.bus.run(scope.id, async () => undefined);
        return { message: `Label ${params.labelId} removed from chat ${jid}` };
      },
    }),
    defineRoute<{ labelId: string }, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/labels/{labelId}', operationId: 'deleteLabel', tag, auth: 'instance', params: keyAnd({ labelId }),
      summary: 'Delete a label (and take it off every chat)',
      description: 'Answers `message`. Unknown label: 404 `label_not_found`.',
      response: messageResponse, errors: [404, 409, 422],
      handler: async ({ scope, params }) => {
        await labels(scope).delete(params.labelId);
        await ctx.bus.run(scope.id, async () => undefined);
        return { message: `Label ${params.labelId} deleted` };
      },
    }),
  ];
}
