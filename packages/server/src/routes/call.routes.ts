import { requireCapability, type CallRejectCapability } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, messageResponse, s } from '../http/schema.js';
import { channelSlots } from '../schemas/channel-slots.js';
import { keyAnd, keyParams } from '../schemas/common.schemas.js';
import { ensureConnected, type InstanceRuntime } from '../instances/instance-runtime.js';
import { connectedCapability, personAddress } from './instance-guards.js';

type Scope = InstanceRuntime;
/** An address on the main channel, as its addressing states it. */
const recipient = channelSlots.mainAddress();
const tag = 'Calls';

const callId = s.string({ minLength: 1, maxLength: 128, description: 'Call id, as the `call` event gave it.' });
const callSchema = s.openObject({
  callId: s.string(), peerJid: s.string(), status: s.enum(['offer', 'ringing', 'accept', 'reject', 'timeout', 'terminate']),
}, ['callId', 'peerJid']);

/** Spec 4.6: placing, accepting, rejecting and ending calls. Call progress arrives as `call` events. */
export function callRoutes(_ctx: ServerContext): RouteDefinition[] {
  // Channels that can only turn calls down expose `callReject`.
  const rejecter = (rt: Scope): CallRejectCapability => rt.main.capabilities.calls ?? requireCapability(rt.main, 'callReject');
  return [
    defineRoute<unknown, unknown, { to: string; isVideo?: boolean }, Scope>({
      method: 'post', idempotent: true, path: '/{key}/call', operationId: 'placeCall', tag, auth: 'instance', params: keyParams,
      summary: 'Call a number',
      description: 'Answers `data` {`callId`, `peerJid`}. The callee gets a `call` event with status `offer`; the caller then gets '
        + '`ringing`, and `accept`, `reject` or `terminate` as the call goes on. `isVideo` (extension) places a video call.',
      body: s.object({ to: recipient, isVideo: s.boolean({ description: 'Extension: a video call (default false).' }) }, ['to']),
      response: dataResponse(s.object({ callId: s.string(), peerJid: s.string() }, ['callId', 'peerJid'])), errors: [404, 409, 422],
      handler: async ({ scope, body }) => {
        const peerJid = personAddress(scope.addressing, body.to, 'body.to');
        const capability = connectedCapability(scope, 'calls');
        const call = await capability.offer(peerJid, { isVideo: body.isVideo ?? false });
        return { data: { callId: call.callId, peerJid: call.peerJid } };
      },
    }),
    defineRoute<unknown, unknown, { callId: string; callFrom: string }, Scope>({
      method: 'post', path: '/{key}/call/accept', operationId: 'acceptCall', tag, auth: 'instance', params: keyParams,
      summary: 'Accept an incoming call',
      description: '`callId` and `callFrom` (the caller) come from the `call` event with status `offer`. Answers `data`: the call '
        + '{`callId`, `peerJid`, `status`: `accept`}. Unknown call: 404 `call_not_found`; a call already answered: 409 `call_not_ringing`.',
      body: s.object({ callId, callFrom: recipient }, ['callId', 'callFrom']),
      response: dataResponse(callSchema), errors: [404, 409, 422],
      handler: async ({ scope, body }) => {
        const callFrom = personAddress(scope.addressing, body.callFrom, 'body.callFrom');
        const capability = connectedCapability(scope, 'calls');
        await capability.accept(body.callId, callFrom);
        return { data: { callId: body.callId, peerJid: callFrom, status: 'accept' } };
      },
    }),
    defineRoute<{ callId: string; callFrom: string }, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/call/{callId}/{callFrom}', operationId: 'rejectCall', tag, auth: 'instance',
      params: keyAnd({ callId, callFrom: recipient }),
      summary: 'Reject an incoming call',
      description: 'Answers `message`; both sides get a `call` event with status `reject`. Unknown call: 404 `call_not_found`; a call '
        + 'already answered: 409 `call_not_ringing` (end it with POST /{key}/call/end).',
      response: messageResponse, errors: [404, 409, 422],
      handler: async ({ scope, params }) => {
        const callFrom = personAddress(scope.addressing, params.callFrom, 'path.callFrom');
        const capability = rejecter(scope);
        ensureConnected(scope);
        await capability.reject(params.callId, callFrom);
        return { message: `Call ${params.callId} rejected` };
      },
    }),
    defineRoute<unknown, unknown, { callId: string; peerJid: string }, Scope>({
      method: 'post', path: '/{key}/call/end', operationId: 'endCall', tag, auth: 'instance', params: keyParams,
      summary: 'End a call (or cancel one still ringing)',
      description: 'Answers `message`; both sides get a `call` event with status `terminate`. Unknown call: 404 `call_not_found`.',
      body: s.object({ callId, peerJid: recipient }, ['callId', 'peerJid']),
      response: messageResponse, errors: [404, 409, 422],
      handler: async ({ scope, body }) => {
        const peerJid = personAddress(scope.addressing, body.peerJid, 'body.peerJid');
        const capability = connectedCapability(scope, 'calls');
        await capability.end(body.callId, peerJid);
        return { message: `Call ${body.callId} ended` };
      },
    }),
  ];
}
