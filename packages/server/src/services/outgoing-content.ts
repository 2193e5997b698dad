import {
  CapabilityNotSupportedError, PayloadTooLargeError, requireCapability, toJid, ValidationError, type ActionButton,
  type CallLinkType, type ChannelName, type ContactCard, type MessageRecord, type MessagingCapability, type OutgoingContent,
  type OutgoingType, type PixItem, type PresenceStatus,
} from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import { notConnected, type InstanceRuntime } from '../instances/instance-runtime.js';
import { MESSAGE_LIMITS, type SendSuffix } from '../schemas/message.schemas.js';
import type { MediaKind } from './media-resolver.js';

/** Optional members are absent or, for texts, possibly empty (read as absent). */
interface Recipient { to: string; provider?: ChannelName }
type Header = { title: string };

/** The validated request bodies of spec 4.2, by path suffix (schemas in schemas/message.schemas.ts). */
export interface SendBodies {
  text: Recipient & { text: string };
  image: Recipient & { url: string; caption?: string };
  audio: Recipient & { url: string };
  video: Recipient & { url: string; caption?: string };
  document: Recipient & { url: string; mimetype: string; fileName: string };
  sticker: Recipient & { url: string };
  'video-note': Recipient & { url: string };
  'base64/image': Recipient & { base64: string; caption?: string };
  'base64/audio': Recipient & { base64: string };
  'base64/document': Recipient & { base64: string; mimetype: string; fileName: string };
  contact: Recipient & { contact: ContactCard };
  contacts: Recipient & { displayName: string; contacts: ContactCard[] };
  location: Recipient & { location: { latitude: number; longitude: number; address?: string } };
  'live-location': Recipient & { latitude: number; longitude: number; caption?: string };
  link: Recipient & { title: string; text: string; description?: string; thumbnailUrl?: string; sourceUrl: string };
  reaction: { text: string; msgId: string };
  presence: Recipient & { status: PresenceStatus };
  title: Recipient & { title: string; text: string; footer?: string };
  button_reply: Recipient & { header?: Header; text: string; footer?: string; buttons: { type: 'quick_reply'; id: string; text: string }[] };
  button_action: Recipient & {
    header?: Header; text: string; footer?: string;
    buttons: { type: ActionButton['type']; text: string; url?: string; phone_number?: string; copy_code?: string }[];
  };
  survey: Recipient & { name: string; options: string[] };
  poll: Recipient & { name: string; values: string[]; selectableCount: number };
  pix: Recipient & {
    title: string; text: string; referenceId: string; code: string; key: string; merchantName: string; keyType: string; items: PixItem[];
    subtotal: number; totalAmount: number;
  };
  event: Recipient & { name: string; description?: string; startTime: string; locationName?: string; locationAddress?: string };
  pin: { id: string; duration: number };
  unpin: { id: string };
  'call-link': Recipient & { type: CallLinkType; caption?: string };
  'create-call-link': { type: CallLinkType };
  product: Recipient & { businessOwnerJid: string; productId: string; catalogId: string };
  'group-invite': Recipient & { groupJid: string; groupName: string; inviteCode: string };
  'request-phone': Recipient;
}

/** Path suffixes that send a message (presence and create-call-link do not). */
export type MessageSuffix = Exclude<SendSuffix, 'presence' | 'create-call-link'>;

/** A send ready for MessagingService.send. */
export interface PreparedSend {
  to: string;
  content: OutgoingContent;
  provider?: ChannelName;
  quoted?: MessageRecord;
}

/** What building a content may use: the server's services, the instance, the chosen channel and the target message. */
interface Env {
  ctx: ServerContext;
  runtime: InstanceRuntime;
  provider?: ChannelName;
  /** The message a reaction or pin acts on (see {@link Mapping.targetOf}). */
  target?: MessageRecord;
}

interface Mapping<S extends MessageSuffix> {
  type: OutgoingType;
  /** Checks beyond the schema, before any I/O (400 naming the field). */
  check?(body: SendBodies[S]): void;
  /** Id of the stored message the send acts on; its chat and channel decide where the send goes. */
  targetOf?(body: SendBodies[S]): string;
  /** Resolves media and referenced messages and answers the recipient and the content. */
  build(env: Env, body: SendBodies[S]): Promise<{ to: string; content: OutgoingContent }>;
}

/** The content with only members that have a value: optional texts given empty are left out. */
function defined(content: OutgoingContent): OutgoingContent {
  return Object.fromEntries(Object.entries(content).filter(([, v]) => v !== undefined && v !== '')) as OutgoingContent;
}

function checkPhone(value: string, field: string): void {
  const digits = value.replace(/\D/g, '');
  if (digits.length < 6 || digits.length > 15) throw new ValidationError(`${field} must have 6 to 15 digits with country code`);
}

function checkHttpUrl(value: string, field: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError(`${field} must be an absolute http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError(`${field} must be an absolute http or https URL`);
}

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

/** A reaction is one emoji (one grapheme that is pictographic), or empty to remove it. */
function checkEmoji(text: string): void {
  if (text === '') return;
  if ([...graphemes.segment(text)].length !== 1 || !EMOJI.test(text)) {
    throw new ValidationError('body.text must be a single emoji, or empty to remove the reaction');
  }
}

/** Unix seconds of an ISO 8601 UTC timestamp whose fields are all in range. */
function unixSecondsOf(iso: string, field: string): number {
  const ms = Date.parse(iso);
  // Date.parse rolls impossible days over (Feb 30 → Mar 2); a round trip catches them.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 16) !== iso.slice(0, 16)) {
    throw new ValidationError(`${field} must be a valid ISO 8601 UTC timestamp (for example 2025-06-01T18:30:00Z)`);
  }
  return Math.floor(ms / 1000);
}

function cardsOf(cards: ContactCard[], field: string): ContactCard[] {
  cards.forEach((c, i) => checkPhone(c.phoneNumber, `${field}[${i}].phoneNumber`));
  return cards.map((c) => ({ fullName: c.fullName, phoneNumber: c.phoneNumber, ...(c.organization ? { organization: c.organization } : {}) }));
}

/** Audio in Ogg (Opus) goes as a voice note, as WhatsApp apps record them; other formats as audio files. */
const VOICE_NOTE_TYPES = new Set(['audio/ogg', 'application/ogg', 'audio/opus']);

function media(env: Env, value: string, field: string, kind: MediaKind, fileName?: string) {
  return env.ctx.media.resolve(value, field, kind, fileName);
}

function base64Media(env: Env, value: string, field: string, kind: MediaKind, fileName?: string) {
  return env.ctx.media.fromDataUri(value, field, kind, fileName);
}

/** One mapping per path suffix: the one place where REST bodies become OutgoingContent (sends and replies). */
const MAPPINGS: { [S in MessageSuffix]: Mapping<S> } = {
  text: { type: 'text', build: async (_env, b) => ({ to: b.to, content: { type: 'text', text: b.text } }) },
  image: {
    type: 'image',
    build: async (env, b) => ({ to: b.to, content: defined({ type: 'image', media: await media(env, b.url, 'body.url', 'image'), caption: b.caption }) }),
  },
  audio: {
    type: 'audio',
    build: async (env, b) => {
      const m = await media(env, b.url, 'body.url', 'audio');
      return { to: b.to, content: { type: 'audio', media: m, ptt: VOICE_NOTE_TYPES.has(m.mimetype) } };
    },
  },
  video: {
    type: 'video',
    build: async (env, b) => ({ to: b.to, content: defined({ type: 'video', media: await media(env, b.url, 'body.url', 'video'), caption: b.caption }) }),
  },
  document: {
    type: 'document',
    build: async (env, b) => {
      // The caller's MIME type and name are what the recipient sees, whatever the server answered.
      const m = { ...(await media(env, b.url, 'body.url', 'document', b.fileName)), mimetype: b.mimetype, fileName: b.fileName };
      return { to: b.to, content: { type: 'document', media: m, mimetype: b.mimetype, fileName: b.fileName } };
    },
  },
  sticker: { type: 'sticker', build: async (env, b) => ({ to: b.to, content: { type: 'sticker', media: await media(env, b.url, 'body.url', 'sticker') } }) },
  'video-note': {
    type: 'video-note',
    build: async (env, b) => ({ to: b.to, content: { type: 'video-note', media: await media(env, b.url, 'body.url', 'video') } }),
  },
  'base64/image': {
    type: 'image',
    build: async (env, b) => ({ to: b.to, content: defined({ type: 'image', media: base64Media(env, b.base64, 'body.base64', 'image'), caption: b.caption }) }),
  },
  'base64/audio': {
    type: 'audio',
    build: async (env, b) => {
      const m = base64Media(env, b.base64, 'body.base64', 'audio');
      return { to: b.to, content: { type: 'audio', media: m, ptt: VOICE_NOTE_TYPES.has(m.mimetype) } };
    },
  },
  'base64/document': {
    type: 'document',
    build: async (env, b) => {
      const m = { ...base64Media(env, b.base64, 'body.base64', 'document', b.fileName), mimetype: b.mimetype, fileName: b.fileName };
      return { to: b.to, content: { type: 'document', media: m, mimetype: b.mimetype, fileName: b.fileName } };
    },
  },
  contact: {
    type: 'contact',
    check: (b) => checkPhone(b.contact.phoneNumber, 'body.contact.phoneNumber'),
    build: async (_env, b) => ({ to: b.to, content: { type: 'contact', contact: cardsOf([b.contact], 'body.contact')[0]! } }),
  },
  contacts: {
    type: 'contacts',
    check: (b) => void cardsOf(b.contacts, 'body.contacts'),
    build: async (_env, b) => ({ to: b.to, content: { type: 'contacts', displayName: b.displayName, contacts: cardsOf(b.contacts, 'body.contacts') } }),
  },
  location: {
    type: 'location',
    build: async (_env, b) => ({
      to: b.to, content: defined({ type: 'location', latitude: b.location.latitude, longitude: b.location.longitude, address: b.location.address }),
    }),
  },
  'live-location': {
    type: 'live-location',
    build: async (_env, b) => ({ to: b.to, content: defined({ type: 'live-location', latitude: b.latitude, longitude: b.longitude, caption: b.caption }) }),
  },
  link: {
    type: 'link',
    check: (b) => {
      checkHttpUrl(b.sourceUrl, 'body.sourceUrl');
      if (b.thumbnailUrl) checkHttpUrl(b.thumbnailUrl, 'body.thumbnailUrl');
    },
    build: async (env, b) => {
      const thumbnail = b.thumbnailUrl ? await media(env, b.thumbnailUrl, 'body.thumbnailUrl', 'image') : undefined;
      if (thumbnail && thumbnail.data.length > MESSAGE_LIMITS.linkThumbnailBytes) {
        throw new PayloadTooLargeError(`body.thumbnailUrl is larger than ${MESSAGE_LIMITS.linkThumbnailBytes} bytes`, {
          field: 'body.thumbnailUrl', limit: MESSAGE_LIMITS.linkThumbnailBytes,
        });
      }
      return {
        to: b.to,
        content: defined({
          type: 'link', text: b.text, title: b.title, description: b.description, sourceUrl: b.sourceUrl, thumbnailUrl: b.thumbnailUrl, thumbnail,
        }),
      };
    },
  },
  reaction: {
    type: 'reaction',
    check: (b) => checkEmoji(b.text),
    targetOf: (b) => b.msgId,
    build: async ({ target }, b) => ({ to: target!.key.remoteJid, content: { type: 'reaction', emoji: b.text, target: target!.key } }),
  },
  title: { type: 'title', build: async (_env, b) => ({ to: b.to, content: defined({ type: 'title', title: b.title, text: b.text, footer: b.footer }) }) },
  button_reply: {
    type: 'button_reply',
    check: (b) => {
      const seen = new Set<string>();
      b.buttons.forEach((button, i) => {
        if (seen.has(button.id)) throw new ValidationError(`body.buttons[${i}].id repeats an earlier button id`);
        seen.add(button.id);
      });
    },
    build: async (_env, b) => ({
      to: b.to,
      content: defined({
        type: 'button_reply', header: b.header, text: b.text, footer: b.footer, buttons: b.buttons.map((x) => ({ id: x.id, text: x.text })),
      }),
    }),
  },
  button_action: {
    type: 'button_action',
    check: (b) => void b.buttons.map(actionButton),
    build: async (_env, b) => ({
      to: b.to, content: defined({ type: 'button_action', header: b.header, text: b.text, footer: b.footer, buttons: b.buttons.map(actionButton) }),
    }),
  },
  survey: { type: 'survey', build: async (_env, b) => ({ to: b.to, content: { type: 'survey', name: b.name, options: b.options } }) },
  poll: {
    type: 'poll',
    check: (b) => {
      if (b.selectableCount > b.values.length) throw new ValidationError(`body.selectableCount must be at most the number of values (${b.values.length})`);
    },
    build: async (_env, b) => ({ to: b.to, content: { type: 'poll', name: b.name, values: b.values, selectableCount: b.selectableCount } }),
  },
  pix: {
    type: 'pix',
    check: (b) => {
      const cents = b.items.reduce((sum, i) => sum + Math.round(i.price * 100) * i.quantity, 0);
      if (cents !== Math.round(b.subtotal * 100)) {
        throw new ValidationError(`body.subtotal must equal the sum of price × quantity of the items (${(cents / 100).toFixed(2)})`);
      }
    },
    build: async (_env, b) => ({
      to: b.to,
      content: {
        type: 'pix', title: b.title, text: b.text, referenceId: b.referenceId, code: b.code, key: b.key, merchantName: b.merchantName,
        keyType: b.keyType, items: b.items.map((i) => ({ id: i.id, name: i.name, price: i.price, quantity: i.quantity })), subtotal: b.subtotal,
        totalAmount: b.totalAmount,
      },
    }),
  },
  event: {
    type: 'event',
    check: (b) => void unixSecondsOf(b.startTime, 'body.startTime'),
    build: async (_env, b) => ({
      to: b.to,
      content: defined({
        type: 'event', name: b.name, description: b.description, startTime: unixSecondsOf(b.startTime, 'body.startTime'),
        locationName: b.locationName, locationAddress: b.locationAddress,
      }),
    }),
  },
  pin: {
    type: 'pin',
    targetOf: (b) => b.id,
    build: async ({ target }, b) => ({ to: target!.key.remoteJid, content: { type: 'pin', target: target!.key, duration: b.duration } }),
  },
  unpin: {
    type: 'unpin',
    targetOf: (b) => b.id,
    build: async ({ target }) => ({ to: target!.key.remoteJid, content: { type: 'unpin', target: target!.key } }),
  },
  'call-link': {
    type: 'call-link',
    build: async (env, b) => {
      // Created last, once everything else is valid: a link is a resource on the network.
      const link = await callLinkCreator(env.runtime, env.provider)(b.type);
      return { to: b.to, content: defined({ type: 'call-link', callType: b.type, caption: b.caption, link }) };
    },
  },
  product: {
    type: 'product',
    check: (b) => void toJid(b.businessOwnerJid, 'body.businessOwnerJid'),
    build: async (_env, b) => ({
      to: b.to,
      content: { type: 'product', businessOwnerJid: toJid(b.businessOwnerJid, 'body.businessOwnerJid'), productId: b.productId, catalogId: b.catalogId },
    }),
  },
  'group-invite': {
    type: 'group-invite',
    build: async (_env, b) => ({
      to: b.to, content: { type: 'group-invite', groupJid: b.groupJid, groupName: b.groupName, inviteCode: b.inviteCode },
    }),
  },
  'request-phone': { type: 'request-phone', build: async (_env, b) => ({ to: b.to, content: { type: 'request-phone' } }) },
};

/** Reads one action button, refusing members of another button type. */
function actionButton(b: SendBodies['button_action']['buttons'][number], i: number): ActionButton {
  const field = `body.buttons[${i}]`;
  const own = { cta_url: 'url', cta_call: 'phone_number', cta_copy: 'copy_code' } as const;
  for (const member of Object.values(own)) {
    if (member !== own[b.type] && b[member] !== undefined) throw new ValidationError(`${field}.${member} is not allowed on a ${b.type} button`);
  }
  const value = b[own[b.type]];
  if (value === undefined) throw new ValidationError(`${field}.${own[b.type]} is required on a ${b.type} button`);
  switch (b.type) {
    case 'cta_url':
      checkHttpUrl(value, `${field}.url`);
      return { type: 'cta_url', text: b.text, url: value };
    case 'cta_call':
      checkPhone(value, `${field}.phone_number`);
      return { type: 'cta_call', text: b.text, phone_number: value };
    case 'cta_copy':
      return { type: 'cta_copy', text: b.text, copy_code: value };
  }
}

/** The main channel's messaging, refusing (409) while it is not connected. */
export function connectedMessaging(runtime: InstanceRuntime, provider?: ChannelName): MessagingCapability {
  const adapter = runtime.adapter(provider);
  const messaging = requireCapability(adapter, 'messaging');
  if (adapter === runtime.main && !runtime.isConnected()) {
    throw notConnected(runtime);
  }
  return messaging;
}

/** The channel's call-link creation (spec 4.2 `/create-call-link`); 422 where the channel has none. */
export function callLinkCreator(runtime: InstanceRuntime, provider?: ChannelName): (type: CallLinkType) => Promise<string> {
  const messaging = connectedMessaging(runtime, provider);
  if (!messaging.createCallLink) throw new CapabilityNotSupportedError(runtime.adapter(provider).channel, 'creating call links');
  return messaging.createCallLink.bind(messaging);
}

/**
 * Turns a validated send body into a send: checks beyond the schema, looks up the referenced or
 * quoted message (404) — a reaction, pin or reply goes through that message's channel — then refuses
 * what the channel cannot send right now (422, 409) and resolves media. Nothing is stored or sent here, so a failure leaves no trace.
 */
export async function prepareSend<S extends MessageSuffix>(
  ctx: ServerContext, runtime: InstanceRuntime, suffix: S, body: SendBodies[S], quotedId?: string,
): Promise<PreparedSend> {
  const mapping = MAPPINGS[suffix] as Mapping<S>;
  mapping.check?.(body);
  const targetId = mapping.targetOf?.(body);
  const target = targetId === undefined ? undefined : await ctx.messaging.existing(runtime, targetId);
  const given = 'provider' in body ? (body as Recipient).provider : undefined;
  // An unknown quoted message is a 404, but the channel's 422/409 still come first.
  const quoted = quotedId === undefined ? undefined : await ctx.messaging.existing(runtime, quotedId).catch((err: unknown) => {
    ctx.messaging.ensureCanSend(runtime, mapping.type, given);
    throw err;
  });
  // A reply goes through the quoted message's channel unless the body names one.
  const provider = target ? target.provider : given ?? (quoted?.provider !== runtime.main.channel ? quoted?.provider : undefined);
  ctx.messaging.ensureCanSend(runtime, mapping.type, provider);
  // Main-channel recipients are phone numbers or JIDs; social channels take their own user ids.
  if ('to' in body && runtime.adapter(provider) === runtime.main) toJid((body as Recipient).to, 'body.to');
  const { to, content } = await mapping.build({ ctx, runtime, provider, target }, body);
  return { to, content, ...(provider ? { provider } : {}), ...(quoted ? { quoted } : {}) };
}

/** Every path suffix that sends a message. */
export const MESSAGE_SUFFIXES = Object.keys(MAPPINGS) as MessageSuffix[];
