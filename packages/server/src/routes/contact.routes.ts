import { NotFoundError, type Contact } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, messageResponse, s } from '../http/schema.js';
import { channelSlots } from '../schemas/channel-slots.js';
import { keyAnd, keyParams } from '../schemas/common.schemas.js';
import { connectedCapability, personAddress } from './instance-guards.js';

type Scope = InstanceRuntime;
/** An address on the main channel, as its addressing states it. */
const recipient = channelSlots.mainAddress();
const tag = 'Contacts';

/** A contact (spec 2.6). */
const contactSchema = s.openObject({
  id: s.string(), name: s.string(), notify: s.string(), imgUrl: s.string(), lid: s.string({ description: 'Extension: the contact\'s LID.' }),
}, ['id', 'name', 'notify']);
const numberParams = keyAnd({ number: recipient });

/** Spec 4.9: the address book (stored contacts, fed by events), blocking, about texts, sessions and LIDs. */
export function contactRoutes(ctx: ServerContext): RouteDefinition[] {
  const contacts = (rt: Scope) => connectedCapability(rt, 'contacts');
  const storedContact = async (rt: Scope, jid: string): Promise<Contact> => {
    const contact = await ctx.storage.contacts.get(rt.id, jid);
    if (!contact) throw new NotFoundError(`contact ${jid}`, 'contact_not_found');
    return contact;
  };
  return [
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/contacts', operationId: 'listContacts', tag, auth: 'instance', params: keyParams,
      summary: 'Contacts, by id', response: dataResponse(s.array(contactSchema)),
      handler: async ({ scope }) => ({ data: await ctx.storage.contacts.list(scope.id) }),
    }),
    defineRoute<{ number: string }, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/contacts/{number}', operationId: 'getContact', tag, auth: 'instance', params: numberParams,
      summary: 'One contact', description: 'Unknown contact: 404 `contact_not_found`.',
      response: dataResponse(contactSchema), errors: [404],
      handler: async ({ scope, params }) => ({ data: await storedContact(scope, personAddress(scope.addressing, params.number, 'path.number')) }),
    }),
    defineRoute<unknown, unknown, { number: string; name: string }, Scope>({
      method: 'post', idempotent: true, path: '/{key}/contacts', operationId: 'saveContact', tag, auth: 'instance', params: keyParams,
      summary: 'Add or rename a contact in the address book', description: 'Answers `data`: the stored contact.',
      body: s.object({ number: recipient, name: s.text(100) }, ['number', 'name']),
      response: dataResponse(contactSchema), errors: [409, 422],
      handler: async ({ scope, body }) => {
        const jid = personAddress(scope.addressing, body.number, 'body.number');
        await contacts(scope).save(jid, body.name);
        return { data: await ctx.bus.run(scope.id, () => storedContact(scope, jid)) };
      },
    }),
    defineRoute<{ number: string }, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/contacts/{number}', operationId: 'removeContact', tag, auth: 'instance', params: numberParams,
      summary: 'Remove a contact from the address book',
      description: 'Answers `message`; the contact leaves the list (its chat stays). Unknown contact: 404 `contact_not_found`.',
      response: messageResponse, errors: [404, 409, 422],
      handler: async ({ scope, params }) => {
        const jid = personAddress(scope.addressing, params.number, 'path.number');
        const capability = contacts(scope);
        await storedContact(scope, jid);
        await capability.remove(jid);
        await ctx.bus.run(scope.id, async () => undefined);
        return { message: `Contact ${jid} removed` };
      },
    }),
    defineRoute<{ number: string }, { action: 'block' | 'unblock' }, unknown, Scope>({
      method: 'patch', path: '/{key}/contacts/{number}', operationId: 'blockContact', tag, auth: 'instance', params: numberParams,
      summary: 'Block or unblock a contact',
      description: 'Answers `data` {`jid`, `blocked`}. A blocked contact\'s messages and calls stop reaching the instance. Blocking a '
        + 'number without an account: 404 `number_not_registered`.',
      query: s.object({ action: s.enum(['block', 'unblock']) }, ['action']),
      response: dataResponse(s.object({ jid: s.string(), blocked: s.boolean() }, ['jid', 'blocked'])), errors: [404, 409, 422],
      handler: async ({ scope, params, query }) => {
        const jid = personAddress(scope.addressing, params.number, 'path.number');
        const capability = contacts(scope);
        if (query.action === 'block') await capability.block(jid);
        else await capability.unblock(jid);
        return { data: { jid, blocked: query.action === 'block' } };
      },
    }),
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/contacts/blocked', operationId: 'listBlockedContacts', tag, auth: 'instance', params: keyParams,
      summary: 'Blocked contacts', description: 'Answers `data`: the JIDs of the blocked contacts.',
      response: dataResponse(s.array(s.string())), errors: [409, 422],
      handler: async ({ scope }) => ({ data: await contacts(scope).blocked() }),
    }),
    defineRoute<{ number: string }, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/contacts/{number}/status', operationId: 'getContactStatus', tag, auth: 'instance', params: numberParams,
      summary: 'A contact\'s about text',
      description: 'Answers `data` {`jid`, `status` (the about text, null when hidden or unset), `setAt` (Unix seconds, when known)}. '
        + 'A number without an account: 404 `number_not_registered`.',
      response: dataResponse(s.object({ jid: s.string(), status: s.nullable(s.string()), setAt: s.integer() }, ['jid', 'status'])),
      errors: [404, 409, 422],
      handler: async ({ scope, params }) => {
        const jid = personAddress(scope.addressing, params.number, 'path.number');
        return { data: await contacts(scope).status(jid) };
      },
    }),
    defineRoute<{ number: string }, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/contacts/{number}/session', operationId: 'clearContactSession', tag, auth: 'instance', params: numberParams,
      summary: 'Clear the end-to-end session with a contact',
      description: 'Answers `message`. Messages and chats stay; the next message exchanged renegotiates the session. A number without an '
        + 'account: 404 `number_not_registered`.',
      response: messageResponse, errors: [404, 409, 422],
      handler: async ({ scope, params }) => {
        const jid = personAddress(scope.addressing, params.number, 'path.number');
        await contacts(scope).clearSession(jid);
        return { message: `Session with ${jid} cleared` };
      },
    }),
    defineRoute<unknown, unknown, { lids: string[] }, Scope>({
      method: 'post', path: '/{key}/contacts/resolve-lids', operationId: 'resolveLids', tag, auth: 'instance', params: keyParams,
      summary: 'Phone-number JIDs behind LIDs',
      description: 'Answers `data`: one {`lid`, `jid`} per LID given, in order; `jid` is null when the LID is unknown.',
      body: s.object({
        lids: s.array(s.string({ pattern: '^\\d{1,24}@lid$', examples: ['123456789012345@lid'], description: 'A LID: digits ending in `@lid`.' }), { minItems: 1, maxItems: 100 }),
      }, ['lids']),
      response: dataResponse(s.array(s.object({ lid: s.string(), jid: s.nullable(s.string()) }, ['lid', 'jid']))), errors: [409, 422],
      handler: async ({ scope, body }) => ({ data: await contacts(scope).resolveLids(body.lids) }),
    }),
  ];
}
