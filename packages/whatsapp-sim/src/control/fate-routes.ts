import type { Simulator } from '../simulator.js';
import { SimError } from '../network/errors.js';
import type { MediaInput } from '../features/media.js';
import { receiptTime } from '../features/receipts.js';
import { field, integer, NUMBER, ok, optionalText, text } from './validate.js';
import type { Body, Route } from './validate.js';

/** The bytes of a base64 member of a body (a string, else 400 naming it). */
function base64(body: Body, name: string): Buffer {
  const value = text(body, name);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value)) throw new SimError(400, 'invalid_request', `${name} must be base64`, { field: name });
  return Buffer.from(value, 'base64');
}

/** A media message of a control body: `{ kind, data (base64), mimetype, fileName?, caption?, thumbnail? (base64 JPEG) }`. */
export function mediaInput(body: Body): MediaInput {
  return {
    kind: text(body, 'kind') as MediaInput['kind'], data: base64(body, 'data'), mimetype: text(body, 'mimetype'),
    fileName: optionalText(body, 'fileName'), caption: optionalText(body, 'caption'),
    ...(body.thumbnail !== undefined ? { thumbnail: base64(body, 'thumbnail') } : {}),
  };
}

/** The optional receipt time `t` of a body. */
const timeOf = (body: Body): number | undefined => (body.t === undefined ? undefined : receiptTime(body.t));

/** A timer in seconds (`expiration`): checked by the simulator against the timers WhatsApp offers. */
const expiration = (body: Body): number => field(body, 'expiration', 'number', true) as number;

/**
 * Control routes of what becomes of messages (README "Control API"): receipts (read and played, timed,
 * read at once), disappearing-message timers of chats and groups, clients' messages garbled for companions. Each is a call on `Simulator`.
 */
export function fateRoutes(sim: Simulator): Route[] {
  return [
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/messages/received/([^/]+)/(read|played)$`), members: ['t'],
      handle: ([number, id, kind], body) => {
        const t = timeOf(body);
        if (kind === 'played') sim.markPlayed(number!, id!, t);
        else sim.markRead(number!, id!, t);
        return { status: 204 };
      },
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/albums$`), members: ['to', 'images'],
      handle: async ([number], body) => {
        if (!Array.isArray(body.images)) throw new SimError(400, 'invalid_album', 'images must be an array of images', { field: 'images' });
        const images = body.images.map((image: unknown) => mediaInput(typeof image === 'object' && image !== null ? image as Body : {}));
        return { status: 201, body: await sim.sendAlbum(number!, text(body, 'to'), images) };
      },
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/garble$`), members: ['messages'],
      handle: ([number], body) => ok(sim.garbleIncoming(number!, integer(body.messages, 'messages', false))),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/receipts$`), members: ['t', 'readAtOnce'],
      handle: ([number], body) => ok(sim.setReceipts(number!, body)),
    },
    {
      method: 'GET', pattern: new RegExp(`^/accounts/${NUMBER}/chats/${NUMBER}/disappearing$`),
      handle: ([number, peer]) => ok(sim.chatTimer(number!, peer!)),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/chats/${NUMBER}/disappearing$`), members: ['expiration'],
      handle: async ([number, peer], body) => ({ status: 201, body: await sim.setDisappearing(number!, peer!, expiration(body)) }),
    },
    {
      method: 'POST', pattern: new RegExp(`^/accounts/${NUMBER}/groups/([^/]+)/disappearing$`), members: ['expiration'],
      handle: ([number, jid], body) => ok(sim.setGroupDisappearing(number!, jid!, expiration(body))),
    },
  ];
}
