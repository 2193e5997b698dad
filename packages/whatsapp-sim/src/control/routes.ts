import { BufferJSON } from '@whiskeysockets/baileys';
import type { Simulator } from '../simulator.js';
import { SimError } from '../network/errors.js';
import type { OutageMode } from '../features/outages.js';
import type { AppStateChange } from '../features/app-state.js';
import type { GroupSetting } from '../features/group-info.js';
import type { MemberAddMode } from '../features/groups.js';
import type { AddressingMode } from '../features/group-addressing.js';
import { field, integer, numbers, NUMBER, ok, optionalText, text } from './validate.js';
import type { Body, Route } from './validate.js';
import { signalRoutes } from './signal-routes.js';
import { socialRoutes } from './social-routes.js';
import { messageRoutes } from './message-routes.js';
import { fateRoutes, mediaInput } from './fate-routes.js';
import { mediaServing } from '../media/serving.js';

/** `companions` of `POST /accounts/{number}/messages`: what the recipient's companions get instead of a plain copy. */
const COMPANION_COPIES: Record<string, 'sendUndecryptable' | 'sendTextAfterHistory'> = { corrupt: 'sendUndecryptable', 'after-history': 'sendTextAfterHistory' };

const MEMBER_ACTIONS = ['add', 'remove', 'promote', 'demote'] as const;
function memberAction(body: Body): (typeof MEMBER_ACTIONS)[number] {
  const action = text(body, 'action');
  if (!(MEMBER_ACTIONS as readonly string[]).includes(action)) throw new SimError(400, 'invalid_request', `action must be one of ${MEMBER_ACTIONS.join(', ')}`, { field: 'action' });
  return action as (typeof MEMBER_ACTIONS)[number];
}

const flag = (body: Body, name: string) => field(body, name, 'boolean', false) as boolean | undefined;

/** The control routes (see README "Control API"); every one is a call on `Simulator`. */
export function routes(sim: Simulator): Route[] {
  return [
    { method: 'GET', pattern: /^\/$/, handle: () => ok({ websocketUrl: sim.url, rootPublicKey: sim.rootPublicKey.toString('base64'), mediaHost: sim.mediaHostname, mediaCertificate: sim.mediaCertificate }) },
    { method: 'GET', pattern: /^\/accounts$/, handle: () => ok(sim.listAccounts()) },
    {
      method: 'POST', pattern: /^\/accounts$/, members: ['number', 'pushName', 'business', 'withoutNinthDigit', 'restricted', 'lidAddressed'],
      handle: (_p, body) => ({
        status: 201,
        body: sim.createAccount({
          number: text(body, 'number'), pushName: optionalText(body, 'pushName'), business: flag(body, 'business'),
          withoutNinthDigit: flag(body, 'withoutNinthDigit'), restricted: flag(body, 'restricted'), lidAddressed: flag(body, 'lidAddressed'),
        }),
      }),
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}$`), handle: ([number]) => ok(sim.getAccount(number!)) },
    {
      method: 'DELETE', pattern: new RegExp(`^/accounts/${NUMBER}/devices/([^/]+)$`),
      handle: ([number, id]) => {
        sim.removeDevice(number!, integer(id, 'path.device')!);
        return { status: 204 };
      },
    },
    { method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/scan$`), members: ['qr'], handle: async ([number], body) => ok(await sim.scanQr(number!, text(body, 'qr'))) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/companions$`), members: ['preKeys', 'synced', 'announce', 'platform'],
      handle: ([number], body) => {
        const issued = sim.issueCompanion(number!, {
          preKeys: integer(body.preKeys, 'preKeys', false), synced: field(body, 'synced', 'boolean', false) as boolean | undefined,
          announce: field(body, 'announce', 'boolean', false) as boolean | undefined, platform: optionalText(body, 'platform'),
        });
        // Buffers as Baileys' BufferJSON writes them ({ type: 'Buffer', data: base64 }): BufferJSON.reviver reads the answer back.
        return { status: 201, body: JSON.parse(JSON.stringify(issued, BufferJSON.replacer)) };
      },
    },
    { method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/pairing-code$`), members: ['code'], handle: async ([number], body) => ok(await sim.enterPairingCode(number!, text(body, 'code'))) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/messages$`), members: ['to', 'text', 'companions'],
      handle: async ([number], body) => {
        const companions = optionalText(body, 'companions');
        if (companions !== undefined && !Object.hasOwn(COMPANION_COPIES, companions)) {
          throw new SimError(400, 'invalid_request', 'companions must be "corrupt" or "after-history" when given', { field: 'companions' });
        }
        const send = companions ? sim[COMPANION_COPIES[companions]!].bind(sim) : sim.sendText.bind(sim);
        return { status: 201, body: await send(number!, text(body, 'to'), text(body, 'text')) };
      },
    },
    { method: 'GET', pattern: /^\/media\/requests$/, handle: () => ok(sim.mediaRequests()) },
    {
      method: 'DELETE', pattern: /^\/media\/files$/,
      handle: (_params, _body, query) => {
        const path = query?.get('path');
        if (!path) throw new SimError(400, 'invalid_request', 'path (the query parameter) is required', { field: 'query.path' });
        sim.removeMedia(path);
        return { status: 204 };
      },
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/messages/received$`), handle: ([number]) => ok(sim.received(number!)) },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/messages/sent$`), handle: ([number]) => ok(sim.sent(number!)) },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/messages/undecryptable$`), handle: ([number]) => ok(sim.undecryptable(number!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/media$`), members: ['to', 'kind', 'data', 'mimetype', 'fileName', 'caption', 'viewOnce', 'fileLength', 'serve', 'thumbnail'],
      handle: async ([number], body) => {
        const media = { ...mediaInput(body), fileLength: integer(body.fileLength, 'fileLength', false), serve: mediaServing(body.serve) };
        const to = text(body, 'to');
        const sent = field(body, 'viewOnce', 'boolean', false) ? sim.sendViewOnce(number!, to, media) : sim.sendMedia(number!, to, media);
        return { status: 201, body: await sent };
      },
    },
    {
      // The phone deletes the file; `?answer=general_error` changes what it answers a media retry (default not_found).
      method: 'DELETE', pattern: new RegExp(`^/accounts/${NUMBER}/messages/received/([^/]+)/media$`),
      handle: ([number, id], _body, query) => {
        sim.loseMedia(number!, id!, query?.get('answer') ?? undefined, 'query.answer');
        return { status: 204 };
      },
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/media-retries$`), handle: ([number]) => ok(sim.answeredMediaRetries(number!)) },
    {
      method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/messages/received/([^/]+)/media$`),
      handle: ([number, id]) => {
        const { media, data } = sim.receivedMedia(number!, id!);
        return ok({ ...media, data: data.toString('base64') });
      },
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/history$`), members: ['chats', 'messagesPerChat', 'mediaEvery', 'unreadPerChat'],
      handle: async ([number], body) => ({
        status: 201,
        body: await sim.seedHistory(number!, { chats: body.chats as number, messagesPerChat: body.messagesPerChat as number, mediaEvery: body.mediaEvery as number | undefined,
          unreadPerChat: body.unreadPerChat as number | undefined }),
      }),
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/app-state$`), handle: ([number]) => ok(sim.phoneState(number!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/app-state$`), members: ['changes'],
      handle: async ([number], body) => ok(await sim.changeAppState(number!, body.changes as AppStateChange[])),
    },
    { method: 'GET', pattern: /^\/groups$/, handle: () => ok(sim.listGroups()) },
    { method: 'GET', pattern: /^\/groups\/([^/]+)$/, handle: ([jid]) => ok(sim.getGroup(jid!)) },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/groups$`), handle: ([number]) => ok(sim.listGroups(number!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/groups$`), members: ['subject', 'participants', 'addressingMode'],
      handle: ([number], body) => ({
        status: 201,
        body: sim.createGroup(number!, text(body, 'subject'), numbers(body, 'participants'), { addressingMode: optionalText(body, 'addressingMode') as AddressingMode | undefined }),
      }),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/groups/([^/]+)/participants$`), members: ['action', 'participants'],
      handle: ([number, jid], body) => ok(sim.updateGroupMembers(number!, jid!, memberAction(body), numbers(body, 'participants'))),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/groups/([^/]+)/info$`), members: ['subject', 'description', 'setting', 'memberAddMode'],
      handle: ([number, jid], body) => ok(sim.changeGroup(number!, jid!, {
        subject: optionalText(body, 'subject'), setting: optionalText(body, 'setting') as GroupSetting | undefined,
        memberAddMode: optionalText(body, 'memberAddMode') as MemberAddMode | undefined,
        ...(body.description === null ? { description: null } : { description: optionalText(body, 'description') }),
      })),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/groups/([^/]+)/messages$`), members: ['text', 'companions'],
      handle: async ([number, jid], body) => {
        const companions = optionalText(body, 'companions');
        return { status: 201, body: await sim.sendGroupText(number!, jid!, text(body, 'text'), companions === undefined ? {} : { companions: companions as 'garbled' }) };
      },
    },
    ...messageRoutes(sim),
    ...fateRoutes(sim),
    ...signalRoutes(sim),
    ...socialRoutes(sim),
    { method: 'GET', pattern: /^\/clients\/pending$/, handle: () => ok(sim.pendingClients()) },
    {
      method: 'POST', pattern: /^\/clients\/([^/]+)\/close$/, members: ['code'],
      handle: ([jid], body) => {
        sim.closeClient(jid!, integer(body.code, 'code')!);
        return { status: 204 };
      },
    },
    { method: 'GET', pattern: /^\/outage$/, handle: () => ok(sim.outage()) },
    {
      method: 'POST', pattern: /^\/outage$/, members: ['mode', 'durationMs', 'latencyMs'],
      handle: async (_p, body) => ok(await sim.startOutage(text(body, 'mode') as OutageMode, integer(body.durationMs, 'durationMs', false), integer(body.latencyMs, 'latencyMs', false))),
    },
    { method: 'DELETE', pattern: /^\/outage$/, handle: async () => ok(await sim.endOutage()) },
    { method: 'GET', pattern: /^\/login-limit$/, handle: () => ok({ limit: sim.loginLimitView() ?? null }) },
    {
      method: 'POST', pattern: /^\/login-limit$/, members: ['limit'],
      handle: (_p, body) => ok({ limit: sim.setLoginLimit(body.limit === null ? undefined : {
        max: integer((body.limit as Body | undefined)?.max, 'limit.max')!, windowMs: integer((body.limit as Body | undefined)?.windowMs, 'limit.windowMs')!,
      }) ?? null }),
    },
  ];
}
