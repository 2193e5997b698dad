import type { AddressingMode } from '../features/group-addressing.js';
import type { Simulator } from '../simulator.js';
import { SimError } from '../network/errors.js';
import type { BusinessProfile } from '../features/business.js';
import type { OrderItem } from '../features/orders.js';
import { field, integer, numbers, NUMBER, ok, optionalText, text } from './validate.js';
import type { Body, Route } from './validate.js';
import { mediaInput } from './fate-routes.js';

const GROUP = '([^/]+)';

function oneOf<T extends string>(body: Body, name: string, values: readonly T[]): T {
  const value = text(body, name);
  if (!(values as readonly string[]).includes(value)) throw new SimError(400, 'invalid_request', `${name} must be one of ${values.join(', ')}`, { field: name });
  return value as T;
}

function websites(body: Body): string[] {
  const value = body.websites;
  if (!Array.isArray(value) || value.length > 2 || !value.every((x) => typeof x === 'string')) {
    throw new SimError(400, 'invalid_request', 'websites must be an array of at most 2 strings', { field: 'websites' });
  }
  return value as string[];
}

function strings(body: Body, name: string): string[] {
  const value = body[name];
  if (!Array.isArray(value) || !value.every((x) => typeof x === 'string')) throw new SimError(400, 'invalid_request', `${name} must be an array of strings`, { field: name });
  return value as string[];
}

/** An order's items: `[{ productId, quantity? }]`, objects with those members only (others: 400 naming them). */
function orderItems(body: Body): OrderItem[] {
  const value = body.items;
  if (!Array.isArray(value)) throw new SimError(400, 'invalid_request', 'items must be an array of { productId, quantity? }', { field: 'items' });
  return value.map((item: unknown, i) => {
    const name = `items[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new SimError(400, 'invalid_request', `${name} must be an object`, { field: name });
    const unknown = Object.keys(item).filter((key) => key !== 'productId' && key !== 'quantity').map((key) => `body.${name}.${key}`);
    if (unknown.length) throw new SimError(400, 'invalid_request', `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not allowed`, { field: unknown });
    const { productId, quantity } = item as Body;
    if (typeof productId !== 'string') throw new SimError(400, 'invalid_request', `${name}.productId must be a string`, { field: `${name}.productId` });
    return { productId, quantity: integer(quantity, `${name}.quantity`, false) };
  });
}

const PROFILE_FIELDS = ['description', 'address', 'email', 'category'] as const;

/** A business profile change (the route refuses other members): strings (websites: an array of strings). */
function profileChange(body: Body): BusinessProfile {
  const change: BusinessProfile = {};
  for (const key of PROFILE_FIELDS) {
    const value = optionalText(body, key);
    if (value !== undefined) change[key] = value;
  }
  if (body.websites !== undefined) change.websites = websites(body);
  return change;
}

/**
 * Control routes of communities, join requests, business accounts, stories and the stanza inspection
 * (README "Control API"); each is a call on `Simulator`.
 */
export function socialRoutes(sim: Simulator): Route[] {
  return [
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/communities$`), members: ['subject', 'participants', 'description', 'addressingMode'],
      handle: ([number], body) => ({
        status: 201,
        body: sim.createCommunity(number!, text(body, 'subject'), numbers(body, 'participants'), optionalText(body, 'description'), {
          addressingMode: optionalText(body, 'addressingMode') as AddressingMode | undefined,
        }),
      }),
    },
    { method: 'GET', pattern: new RegExp(`^/groups/${GROUP}/linked$`), handle: ([jid]) => ok(sim.communityGroups(jid!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/communities/${GROUP}/links$`), members: ['group', 'action'],
      handle: ([number, community], body) => ok(sim.linkGroup(number!, community!, text(body, 'group'), oneOf(body, 'action', ['link', 'unlink'] as const) === 'link')),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/groups/${GROUP}/join-approval$`), members: ['on'],
      handle: ([number, jid], body) => ok(sim.setJoinApproval(number!, jid!, field(body, 'on', 'boolean', true) as boolean)),
    },
    { method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/groups/${GROUP}/invite$`), members: [], handle: ([number, jid]) => ok(sim.revokeInvite(number!, jid!)) },
    { method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/groups/${GROUP}/join$`), members: [], handle: ([number, jid]) => ok(sim.requestJoin(number!, jid!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/groups/${GROUP}/requests$`), members: ['action', 'participants'],
      handle: ([number, jid], body) => ok(sim.handleJoinRequests(number!, jid!, oneOf(body, 'action', ['approve', 'reject'] as const), numbers(body, 'participants'))),
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/business$`), handle: ([number]) => ok(sim.businessProfile(number!)) },
    { method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/business$`), members: ['websites', ...PROFILE_FIELDS], handle: ([number], body) => ok(sim.setBusinessProfile(number!, profileChange(body))) },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/catalog$`), handle: ([number]) => ok(sim.catalog(number!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/catalog$`), members: ['name', 'price', 'currency', 'description', 'retailerId', 'isHidden', 'images'],
      handle: ([number], body) => {
        const price = field(body, 'price', 'number', true) as number;
        const isHidden = field(body, 'isHidden', 'boolean', false) as boolean | undefined;
        const images = body.images === undefined ? undefined : numbers(body, 'images');
        const product = {
          name: text(body, 'name'), description: optionalText(body, 'description') ?? '', price, currency: text(body, 'currency'),
          ...(optionalText(body, 'retailerId') ? { retailerId: optionalText(body, 'retailerId') } : {}),
          ...(isHidden !== undefined ? { isHidden } : {}), ...(images ? { images } : {}),
        };
        return { status: 201, body: sim.addProduct(number!, product) };
      },
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/collections$`), handle: ([number]) => ok(sim.collections(number!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/collections$`), members: ['name', 'productIds'],
      handle: ([number], body) => ({ status: 201, body: sim.addCollection(number!, text(body, 'name'), strings(body, 'productIds')) }),
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/orders$`), handle: ([number]) => ok(sim.orders(number!)) },
    {
      // The phone of {number} orders from the catalog of the business `to`.
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/orders$`), members: ['to', 'items'],
      handle: async ([number], body) => ({ status: 201, body: await sim.sendOrder(number!, text(body, 'to'), orderItems(body)) }),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/status$`), members: ['text', 'media', 'audience'],
      // A text story (`text`), or an image or video one (`media`: `{ kind, data (base64), mimetype, caption? }`).
      handle: async ([number], body) => {
        const story = body.media !== undefined ? mediaInput(typeof body.media === 'object' && body.media !== null ? body.media as Body : {}) : text(body, 'text');
        return { status: 201, body: await sim.postStatus(number!, story, numbers(body, 'audience')) };
      },
    },
    {
      method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/stanzas$`),
      handle: ([number], _body, query) => ok(sim.stanzas(number!, query?.get('tag') ?? undefined)),
    },
  ];
}
