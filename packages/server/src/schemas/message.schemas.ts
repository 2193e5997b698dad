import { s, type JsonSchema } from '../http/schema.js';
import { channelSlots } from './channel-slots.js';
import { urlField } from './common.schemas.js';
import { SEND_OPTION_SCHEMAS } from '../send/send-options.js';
import { richSendBodies } from './rich-send.schemas.js';

/** The message record of spec 2.4. */
export const messageRecordSchema = s.openObject({
  key: s.openObject({ remoteJid: s.string(), fromMe: s.boolean(), id: s.string(), participant: s.string() }, ['remoteJid', 'fromMe', 'id']),
  message: s.anyObject({ description: 'One typed member, named as WhatsApp names it (extendedTextMessage, imageMessage, …).' }),
  messageTimestamp: s.string({ pattern: '^\\d+$', description: 'Unix seconds as text.' }),
  status: s.enum(['PENDING', 'SERVER_ACK', 'DELIVERY_ACK', 'READ', 'PLAYED', 'ERROR']),
  provider: channelSlots.provider(),
  pushName: s.string(),
  queue: s.openObject({
    state: s.enum(['queued', 'scheduled', 'paused', 'sending'], {
      description: '`scheduled`: waiting for its `delay`/`sendAt` or pacing slot; `queued`: due, waiting its turn; `paused`: the queue is paused; `sending`: a worker is sending it.',
    }),
    dueAt: s.string({ description: 'ISO 8601: when it is due.' }),
  }, ['state', 'dueAt'], {
    description: 'Present while the send is in the outbound queue (status stays `PENDING`); absent once the channel took it. See docs/queue.md.',
  }),
}, ['key', 'message', 'messageTimestamp', 'status']);

/** The optional `provider` of spec 1.6: one of the registered channels. */
export const providerField = channelSlots.sendProvider();

/** The chat of spec 2.5. */
export const chatSchema = s.openObject({
  id: s.string(), name: s.string(), timestamp: s.integer(), unreadCount: s.integer(), pinned: s.boolean(), archived: s.boolean(),
  mutedUntil: s.integer({ description: 'Unix seconds when the mute ends; 0 when not muted.' }), ephemeralExpiration: s.integer(), labels: s.array(s.string()),
}, ['id', 'name', 'timestamp', 'unreadCount']);

/**
 * Bounds of the send bodies (spec 8 leaves them open; docs/rest-api.md "Messages" lists them).
 * Interactive bounds follow WhatsApp's own (header and footer 60, button titles 20 characters).
 */
export const MESSAGE_LIMITS = {
  text: 65_536, caption: 4_096, fileName: 255, interactiveText: 4_096, header: 60, footer: 60, replyButtons: 3, actionButtons: 3,
  buttonText: 20, buttonId: 256, contacts: 50, name: 256, pollOptions: { min: 2, max: 12 }, optionText: 100, pixItems: 50,
  pinSeconds: 2_592_000, linkThumbnailBytes: 256 * 1024,
} as const;

const L = MESSAGE_LIMITS;
const caption = s.string({ maxLength: L.caption, description: 'Optional; an empty caption is the same as none.' });
const mimetype = s.string({ minLength: 3, maxLength: 255, pattern: '^[\\w.+-]+/[\\w.+-]+$', examples: ['application/pdf'], description: 'MIME type, e.g. application/pdf.' });
const fileName = s.string({ minLength: 1, maxLength: L.fileName, pattern: '^[^/\\\\\\u0000-\\u001f]+$', examples: ['report.pdf'], description: 'File name shown to the recipient (no path).' });
const base64 = s.string({ minLength: 1, pattern: '^data:', examples: ['data:application/pdf;base64,JVBERi0xLjQK'], description: 'A base64 data URI: data:<mime>;base64,<data>.' });
const latitude = s.number({ minimum: -90, maximum: 90 });
const longitude = s.number({ minimum: -180, maximum: 180 });
const interactiveText = s.text(L.interactiveText);
const header = s.object({ title: s.text(L.header) }, ['title']);
const footer = s.string({ maxLength: L.footer, description: 'Optional; empty means none.' });

/** A contact card (spec 2.12). */
export const contactCardSchema = s.object({
  fullName: s.text(L.name),
  phoneNumber: s.string({ minLength: 6, maxLength: 32, pattern: '^\\+?[0-9][0-9 ()-]*$', examples: ['+55 11 99999-0000'], description: 'Digits with country code (6 to 15 digits; +, spaces, dashes and parentheses allowed).' }),
  organization: s.string({ maxLength: L.name }),
}, ['fullName', 'phoneNumber']);

/** The recipient of a send, as the registered channels address people. */
const to = channelSlots.recipient();

/** Send bodies that may carry media inline (a data URI in `url` or `base64`): their routes read up to the media body limit. */
export const INLINE_MEDIA_SENDS: ReadonlySet<string> = new Set([
  'image', 'audio', 'video', 'document', 'sticker', 'video-note', 'base64/image', 'base64/audio', 'base64/document',
]);

/**
 * Request bodies of the send operations of spec 4.2, by path suffix; the replies of 4.3 take the same
 * body as the send of their type. Members the spec marks optional (and a few it leaves open, listed
 * in docs/rest-api.md) are optional; everything else is required.
 */
const PLAIN_SEND_BODIES = withSendOptions({
  text: s.object({ to, text: s.text(L.text), provider: providerField }, ['to', 'text']),
  image: s.object({ to, url: urlField, caption, provider: providerField }, ['to', 'url']),
  audio: s.object({ to, url: urlField, provider: providerField }, ['to', 'url']),
  video: s.object({ to, url: urlField, caption, provider: providerField }, ['to', 'url']),
  document: s.object({ to, url: urlField, mimetype, fileName, caption, provider: providerField }, ['to', 'url', 'mimetype', 'fileName']),
  sticker: s.object({ to, url: urlField }, ['to', 'url']),
  'video-note': s.object({ to, url: urlField }, ['to', 'url']),
  'base64/image': s.object({ to, base64, caption }, ['to', 'base64']),
  'base64/audio': s.object({ to, base64 }, ['to', 'base64']),
  'base64/document': s.object({ to, base64, mimetype, fileName, caption }, ['to', 'base64', 'mimetype', 'fileName']),
  contact: s.object({ to, contact: contactCardSchema }, ['to', 'contact']),
  contacts: s.object({
    to, displayName: s.text(L.name), contacts: s.array(contactCardSchema, { minItems: 1, maxItems: L.contacts }),
  }, ['to', 'displayName', 'contacts']),
  location: s.object({
    to, location: s.object({ latitude, longitude, address: s.string({ maxLength: 1024 }) }, ['latitude', 'longitude']),
  }, ['to', 'location']),
  'live-location': s.object({ to, latitude, longitude, caption }, ['to', 'latitude', 'longitude']),
  link: s.object({
    to, title: s.text(1024), text: s.text(L.text), description: s.string({ maxLength: 1024 }),
    thumbnailUrl: s.string({ minLength: 1, maxLength: 4096, description: 'Image fetched once and sent as the preview thumbnail (at most 256 KiB).' }),
    sourceUrl: s.string({ minLength: 1, maxLength: 4096, examples: ['https://example.com/'], description: 'The http or https link previewed (not fetched).' }),
  }, ['to', 'title', 'text', 'sourceUrl']),
  reaction: s.object({
    text: s.string({ maxLength: 32, examples: ['👍'], description: 'One emoji; an empty text removes the reaction.' }),
    msgId: s.text(512, { description: 'Id of the message reacted to; it must exist in this instance.' }),
  }, ['text', 'msgId']),
  presence: s.object({
    to, status: s.enum(['unavailable', 'available', 'composing', 'recording', 'paused']), provider: providerField,
  }, ['to', 'status']),
  title: s.object({ to, title: s.text(L.header), text: interactiveText, footer }, ['to', 'title', 'text']),
  button_reply: s.object({
    to, header, text: interactiveText, footer,
    buttons: s.array(s.object({ type: s.enum(['quick_reply']), id: s.text(L.buttonId), text: s.text(L.buttonText) }, ['type', 'id', 'text']), {
      minItems: 1, maxItems: L.replyButtons, description: 'Ids must be distinct.',
    }),
  }, ['to', 'text', 'buttons']),
  button_action: s.object({
    to, provider: providerField, header, text: interactiveText, footer,
    buttons: s.array(s.object({
      type: s.enum(['cta_url', 'cta_call', 'cta_copy']),
      text: s.text(L.buttonText),
      url: s.string({ minLength: 1, maxLength: 2048, description: 'cta_url only: http or https URL.' }),
      phone_number: s.string({ minLength: 6, maxLength: 32, pattern: '^\\+?[0-9][0-9 ()-]*$', examples: ['+55 11 99999-0000'], description: 'cta_call only.' }),
      copy_code: s.text(256, { description: 'cta_copy only.' }),
    }, ['type', 'text']), {
      minItems: 1, maxItems: L.actionButtons, description: 'Each button carries exactly the member of its type.',
      examples: [[{ type: 'cta_url', text: 'Open the site', url: 'https://example.com/' }]],
    }),
  }, ['to', 'text', 'buttons']),
  survey: s.object({
    to, name: s.text(L.name), options: s.array(s.text(L.optionText), { minItems: L.pollOptions.min, maxItems: L.pollOptions.max, uniqueItems: true }),
  }, ['to', 'name', 'options']),
  poll: s.object({
    to, name: s.text(L.name),
    values: s.array(s.text(L.optionText), { minItems: L.pollOptions.min, maxItems: L.pollOptions.max, uniqueItems: true }),
    selectableCount: s.integer({ minimum: 0, maximum: L.pollOptions.max, description: 'How many options one person may pick (0 = any number; at most the number of values).' }),
  }, ['to', 'name', 'values', 'selectableCount']),
  pix: s.object({
    to, title: s.text(L.name), text: interactiveText, referenceId: s.text(64), code: s.text(1024, { description: 'Pix "copia e cola" code.' }),
    key: s.text(256), merchantName: s.text(100), keyType: s.enum(['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP']),
    items: s.array(s.object({
      id: s.text(64), name: s.text(L.name), price: s.number({ minimum: 0 }), quantity: s.integer({ minimum: 1, maximum: 10_000 }),
    }, ['id', 'name', 'price', 'quantity']), { minItems: 1, maxItems: L.pixItems }),
    subtotal: s.number({ minimum: 0, description: 'Must equal the sum of price × quantity (to the cent).' }),
    totalAmount: s.number({ minimum: 0 }),
  }, ['to', 'title', 'text', 'referenceId', 'code', 'key', 'merchantName', 'keyType', 'items', 'subtotal', 'totalAmount']),
  event: s.object({
    to, name: s.text(L.name), description: s.string({ maxLength: 2048 }),
    startTime: s.string({ examples: ['2030-01-01T18:30:00Z'], pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?Z$', description: 'ISO 8601 UTC timestamp, e.g. 2025-06-01T18:30:00Z.' }),
    locationName: s.string({ maxLength: L.name }), locationAddress: s.string({ maxLength: 1024 }),
  }, ['to', 'name', 'startTime']),
  pin: s.object({
    id: s.text(512, { description: 'Id of the message to pin; it must exist in this instance.' }),
    duration: s.integer({ minimum: 1, maximum: L.pinSeconds, description: 'Seconds; rounded up to what WhatsApp offers (24 hours, 7 days, 30 days).' }),
  }, ['id', 'duration']),
  unpin: s.object({ id: s.text(512) }, ['id']),
  'call-link': s.object({ to, type: s.enum(['audio', 'video']), caption }, ['to', 'type']),
  'create-call-link': s.object({ type: s.enum(['audio', 'video']) }, ['type']),
  product: s.object({
    to, businessOwnerJid: s.text(128, { examples: ['5511999990000'], description: 'Phone number or JID of the business owning the catalog.' }), productId: s.text(128), catalogId: s.text(128),
  }, ['to', 'businessOwnerJid', 'productId', 'catalogId']),
  'group-invite': s.object({
    // The group's id in the form the main channel's addressing states (`groups.schema`), as group paths take it.
    to, groupJid: channelSlots.groupId(),
    groupName: s.text(100), inviteCode: s.string({ pattern: '^[A-Za-z0-9_-]{6,64}$', examples: ['AbCdEfGhIjKlMnOpQrStUv'], description: 'The code of the invite link, without the URL.' }),
  }, ['to', 'groupJid', 'groupName', 'inviteCode']),
  'request-phone': s.object({ to }, ['to']),
} satisfies Record<string, JsonSchema>);

/** Adds the queue options (`delay`, `sendAt`, `typing`; issue 16) to every body that sends a message. */
function withSendOptions<T extends Record<string, JsonSchema>>(bodies: T): T {
  for (const [suffix, body] of Object.entries(bodies)) {
    if (suffix === 'presence' || suffix === 'create-call-link') continue;
    body.properties = { ...(body.properties as Record<string, JsonSchema>), ...SEND_OPTION_SCHEMAS };
  }
  return bodies;
}

const RICH = richSendBodies(PLAIN_SEND_BODIES);
/** The bodies of the sends, with the members of richer sends (see rich-send.schemas.ts). */
export const SEND_BODIES = RICH.send;
/** The bodies of the replies of spec 4.3: a send's body without `quoted`. */
export const REPLY_BODIES = RICH.reply;

/** A path suffix of spec 4.2. */
export type SendSuffix = keyof typeof SEND_BODIES;
