import type { Simulator } from '../simulator.js';
import { SimError } from '../network/errors.js';
import type { ChatState } from '../features/presence.js';
import { field, NUMBER, ok, optionalText, text } from './validate.js';
import type { Body, Route } from './validate.js';

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

/**
 * Control routes of presence, chat states, calls, profiles, block lists and privacy (README "Control
 * API"); each is a call on `Simulator`.
 */
export function signalRoutes(sim: Simulator): Route[] {
  return [
    {
      method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/presence$`), handle: ([number]) => ok(sim.presence(number!)),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/presence$`), members: ['presence'],
      handle: ([number], body) => ok(sim.setPresence(number!, text(body, 'presence') as 'available')),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/chatstate$`), members: ['to', 'state'],
      handle: ([number], body) => {
        sim.sendChatState(number!, text(body, 'to'), text(body, 'state') as ChatState);
        return { status: 204 };
      },
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/signals$`), handle: ([number]) => ok(sim.signals(number!)) },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/calls$`), handle: ([number]) => ok(sim.calls(number!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/calls$`), members: ['to', 'video'],
      handle: ([number], body) => ({ status: 201, body: sim.call(number!, text(body, 'to'), { video: field(body, 'video', 'boolean', false) as boolean | undefined }) }),
    },
    { method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/calls/([^/]+)/end$`), members: [], handle: ([number, id]) => ok(sim.endCall(number!, id!)) },
    { method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/calls/([^/]+)/accept$`), members: [], handle: ([number, id]) => ok(sim.acceptCall(number!, id!)) },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/profile$`), handle: ([number]) => ok(sim.profile(number!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/profile$`), members: ['name', 'status', 'picture'],
      handle: async ([number], body) => ok(await sim.setProfile(number!, { name: optionalText(body, 'name'), status: optionalText(body, 'status'), picture: picture(body) })),
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/profile/picture$`), handle: ([number]) => ok({ data: sim.profilePicture(number!).toString('base64') }) },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/blocklist$`), handle: ([number]) => ok(sim.blocklist(number!)) },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/blocklist$`), members: ['number', 'blocked'],
      handle: ([number], body) => ok(sim.setBlocked(number!, text(body, 'number'), field(body, 'blocked', 'boolean', true) as boolean)),
    },
    { method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/privacy$`), handle: ([number]) => ok(sim.privacy(number!)) },
    { method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/privacy$`), members: ['settings'], handle: ([number], body) => ok(sim.setPrivacy(number!, settings(body))) },
  ];
}
