import type { Simulator } from '../simulator.js';
import { SimError } from '../network/errors.js';
import type { OutageMode } from '../features/outages.js';
import type { AppStateChange } from '../features/app-state.js';
import type { ChatState } from '../features/presence.js';

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  pattern: RegExp;
  handle(params: string[], body: Record<string, unknown>): Promise<{ status: number; body?: unknown }> | { status: number; body?: unknown };
}

type Body = Record<string, unknown>;

function field(body: Body, name: string, type: 'string' | 'number' | 'boolean', required: boolean): unknown {
  const value = body[name];
  if (value === undefined || value === null) {
    if (required) throw new SimError(400, 'invalid_request', `${name} is required`, { field: name });
    return undefined;
  }
  if (typeof value !== type) throw new SimError(400, 'invalid_request', `${name} must be a ${type}`, { field: name });
  return value;
}
const text = (body: Body, name: string): string => field(body, name, 'string', true) as string;
const optionalText = (body: Body, name: string): string | undefined => field(body, name, 'string', false) as string | undefined;

function numbers(body: Body, name: string): string[] {
  const value = body[name];
  if (!Array.isArray(value) || value.length > 1024 || !value.every((x) => typeof x === 'string')) {
    throw new SimError(400, 'invalid_request', `${name} must be an array of at most 1024 numbers (strings)`, { field: name });
  }
  return value as string[];
}

const MEMBER_ACTIONS = ['add', 'remove', 'promote', 'demote'] as const;
function memberAction(body: Body): (typeof MEMBER_ACTIONS)[number] {
  const action = text(body, 'action');
  if (!(MEMBER_ACTIONS as readonly string[]).includes(action)) throw new SimError(400, 'invalid_request', `action must be one of ${MEMBER_ACTIONS.join(', ')}`, { field: 'action' });
  return action as (typeof MEMBER_ACTIONS)[number];
}

function integer(value: unknown, name: string, required = true): number | undefined {
  if (value === undefined && !required) return undefined;
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number)) throw new SimError(400, 'invalid_request', `${name} must be an integer`, { field: name });
  return number;
}

const ok = (body: unknown) => ({ status: 200, body });

/** A base64 JPEG, null (remove) or absent. */
function picture(body: Body): Buffer | null | undefined {
  const value = body.picture;
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) throw new SimError(400, 'invalid_request', 'picture must be a base64 JPEG or null', { field: 'picture' });
  return Buffer.from(value, 'base64');
}

function settings(body: Body): Record<string, string> {
  const value = body.settings;
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new SimError(400, 'invalid_request', 'settings must be an object of category: value', { field: 'settings' });
  return value as Record<string, string>;
}
const NUMBER = '([^/]+)';

/** The control routes (see README "Control API"); every one is a call on `Simulator`. */
export function routes(sim: Simulator): Route[] {
  return [
    { method: 'GET', pattern: /^\/$/, handle: () => ok({ websocketUrl: sim.url, rootPublicKey: sim.rootPublicKey.toString('base64'), mediaHost: sim.mediaHostname, mediaCertificate: sim.mediaCertificate }) },
    { method: 'GET', pattern: /^\/accounts$/, handle: () => ok(sim.listAccounts()) },
    {
      method: 'POST', pattern: /^\/accounts$/,
      handle: (_p, body) => ({
        status: 201,
        body: sim.createAccount({ number: text(body, 'number'), pushName: optionalText(body, 'pushName'), business: field(body, 'business', 'boolean', false) as boolean | undefined }),
      }),
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}$`), handle: ([number]) => ok(sim.getAccount(number!)) },
    {
      method: 'DELETE', pattern: new RegExp(`^/accounts/${NUMBER}/devices/([^/]+)$`),
      handle: ([number, id]) => {
        sim.removeDevice(number!, integer(id, 'device')!);
        return { status: 204 };
      },
    },
    { method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/scan$`), handle: async ([number], body) => ok(await sim.scanQr(number!, text(body, 'qr'))) },
    { method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/pairing-code$`), handle: async ([number], body) => ok(await sim.enterPairingCode(number!, text(body, 'code'))) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/messages$`),
      handle: async ([number], body) => ({ status: 201, body: await sim.sendText(number!, text(body, 'to'), text(body, 'text')) }),
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/messages/received$`), handle: ([number]) => ok(sim.received(number!)) },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/messages/sent$`), handle: ([number]) => ok(sim.sent(number!)) },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/messages/undecryptable$`), handle: ([number]) => ok(sim.undecryptable(number!)) },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/stanzas$`), handle: ([number]) => ok(sim.stanzasFrom(number!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/messages/received/([^/]+)/read$`),
      handle: ([number, id]) => {
        sim.markRead(number!, id!);
        return { status: 204 };
      },
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/media$`),
      handle: async ([number], body) => {
        const data = text(body, 'data');
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw new SimError(400, 'invalid_request', 'data must be base64', { field: 'data' });
        const media = {
          kind: text(body, 'kind') as 'image', data: Buffer.from(data, 'base64'), mimetype: text(body, 'mimetype'),
          fileName: optionalText(body, 'fileName'), caption: optionalText(body, 'caption'),
        };
        return { status: 201, body: await sim.sendMedia(number!, text(body, 'to'), media) };
      },
    },
    {
      method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/messages/received/([^/]+)/media$`),
      handle: ([number, id]) => {
        const { media, data } = sim.receivedMedia(number!, id!);
        return ok({ ...media, data: data.toString('base64') });
      },
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/history$`),
      handle: async ([number], body) => ({
        status: 201,
        body: await sim.seedHistory(number!, { chats: body.chats as number, messagesPerChat: body.messagesPerChat as number, mediaEvery: body.mediaEvery as number | undefined }),
      }),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/app-state$`),
      handle: async ([number], body) => ok(await sim.changeAppState(number!, body.changes as AppStateChange[])),
    },
    { method: 'GET', pattern: /^\/groups$/, handle: () => ok(sim.listGroups()) },
    { method: 'GET', pattern: /^\/groups\/([^/]+)$/, handle: ([jid]) => ok(sim.getGroup(jid!)) },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/groups$`), handle: ([number]) => ok(sim.listGroups(number!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/groups$`),
      handle: ([number], body) => ({ status: 201, body: sim.createGroup(number!, text(body, 'subject'), numbers(body, 'participants')) }),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/groups/([^/]+)/participants$`),
      handle: ([number, jid], body) => ok(sim.updateGroupMembers(number!, jid!, memberAction(body), numbers(body, 'participants'))),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/groups/([^/]+)/messages$`),
      handle: async ([number, jid], body) => ({ status: 201, body: await sim.sendGroupText(number!, jid!, text(body, 'text')) }),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/presence$`),
      handle: ([number], body) => ok(sim.setPresence(number!, text(body, 'presence') as 'available')),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/chatstate$`),
      handle: ([number], body) => {
        sim.sendChatState(number!, text(body, 'to'), text(body, 'state') as ChatState);
        return { status: 204 };
      },
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/signals$`), handle: ([number]) => ok(sim.signals(number!)) },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/calls$`), handle: ([number]) => ok(sim.calls(number!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/calls$`),
      handle: ([number], body) => ({ status: 201, body: sim.call(number!, text(body, 'to'), { video: field(body, 'video', 'boolean', false) as boolean | undefined }) }),
    },
    { method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/calls/([^/]+)/end$`), handle: ([number, id]) => ok(sim.endCall(number!, id!)) },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/profile$`), handle: ([number]) => ok(sim.profile(number!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/profile$`),
      handle: async ([number], body) => ok(await sim.setProfile(number!, { name: optionalText(body, 'name'), status: optionalText(body, 'status'), picture: picture(body) })),
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/profile/picture$`), handle: ([number]) => ok({ data: sim.profilePicture(number!).toString('base64') }) },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/blocklist$`), handle: ([number]) => ok(sim.blocklist(number!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/blocklist$`),
      handle: ([number], body) => ok(sim.setBlocked(number!, text(body, 'number'), field(body, 'blocked', 'boolean', true) as boolean)),
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/privacy$`), handle: ([number]) => ok(sim.privacy(number!)) },
    { method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/privacy$`), handle: ([number], body) => ok(sim.setPrivacy(number!, settings(body))) },
    { method: 'GET', pattern: /^\/clients\/pending$/, handle: () => ok(sim.pendingClients()) },
    {
      method: 'POST', pattern: /^\/clients\/([^/]+)\/close$/,
      handle: ([jid], body) => {
        sim.closeClient(jid!, integer(body.code, 'code')!);
        return { status: 204 };
      },
    },
    { method: 'GET', pattern: /^\/outage$/, handle: () => ok(sim.outage()) },
    {
      method: 'POST', pattern: /^\/outage$/,
      handle: async (_p, body) => ok(await sim.startOutage(text(body, 'mode') as OutageMode, integer(body.durationMs, 'durationMs', false))),
    },
    { method: 'DELETE', pattern: /^\/outage$/, handle: async () => ok(await sim.endOutage()) },
  ];
}
