import type { Simulator } from '../simulator.js';
import { SimError } from '../network/errors.js';
import { MESSAGE_KINDS, type PhoneMessageInput } from '../features/message-kinds.js';
import { isMediaKind } from '../features/media.js';
import { field, NUMBER, optionalText } from './validate.js';
import type { Body, Route } from './validate.js';

/** An optional object member (quoted message, ad), else 400. */
function object(body: Body, name: string): Body | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new SimError(400, 'invalid_request', `${name} must be an object`, { field: name });
  return value as Body;
}

/**
 * The message of `POST /accounts/{number}/messages/{kind}`: the body's members as the kind takes them
 * (README "Control API"); media `data` is base64. Member types are checked here, their values by
 * `Simulator.sendMessage`.
 */
function messageOf(kind: string, body: Body): PhoneMessageInput {
  if (!isMediaKind(kind)) {
    // Every member is passed on as given (objects checked to be objects); sendMessage checks each value.
    for (const name of ['context', 'quoted', 'ad']) object(body, name);
    return { ...body, kind } as PhoneMessageInput;
  }
  const data = field(body, 'data', 'string', true) as string;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw new SimError(400, 'invalid_request', 'data must be base64', { field: 'data' });
  return {
    kind: kind as 'video', data: Buffer.from(data, 'base64'), mimetype: field(body, 'mimetype', 'string', true) as string,
    fileName: optionalText(body, 'fileName'), caption: optionalText(body, 'caption'),
    voice: field(body, 'voice', 'boolean', false) as boolean | undefined, animated: field(body, 'animated', 'boolean', false) as boolean | undefined,
  };
}

const MEDIA_MEMBERS = ['data', 'mimetype', 'fileName', 'caption', 'voice', 'animated'] as const;

/** The members each kind takes beside `to` or `group` (the README's table). */
const KIND_MEMBERS: Record<(typeof MESSAGE_KINDS)[number], readonly string[]> = {
  image: MEDIA_MEMBERS, audio: MEDIA_MEMBERS, document: MEDIA_MEMBERS, video: MEDIA_MEMBERS, sticker: MEDIA_MEMBERS,
  location: ['latitude', 'longitude', 'name', 'address'], contacts: ['contacts'], reaction: ['messageId', 'emoji', 'author'],
  button: ['id', 'text', 'template', 'context'], list: ['id', 'title', 'description', 'context'], interactive: ['id', 'title', 'context'],
  reply: ['text', 'quoted'], mention: ['text', 'mentions'], referral: ['text', 'ad'], edit: ['messageId', 'text', 'bare'],
  revoke: ['messageId'], vote: ['messageId', 'options'], rsvp: ['messageId', 'response', 'extraGuests'],
};

/** The members of `kind`'s body; 404 `unknown_kind` for a kind there is not. */
function kindMembers(kind: string): readonly string[] {
  if (!(MESSAGE_KINDS as readonly string[]).includes(kind)) {
    throw new SimError(404, 'unknown_kind', `no message kind ${kind}; kinds: ${MESSAGE_KINDS.join(', ')}`, { kind });
  }
  return ['to', 'group', ...KIND_MEMBERS[kind as (typeof MESSAGE_KINDS)[number]]];
}

/** `POST /accounts/{number}/messages/{kind}`: the phone sends a message of that kind to `to` or into `group`. */
export function messageRoutes(sim: Simulator): Route[] {
  return [
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/messages/([a-z]+)$`), members: ([, kind]) => kindMembers(kind!),
      handle: async ([number, kind], body) => {
        const target = { to: optionalText(body, 'to'), group: optionalText(body, 'group') };
        const { to: _to, group: _group, ...rest } = body;
        return { status: 201, body: await sim.sendMessage(number!, target, messageOf(kind!, rest)) };
      },
    },
  ];
}
