import { ValidationError } from '@parley/core';
import { check, RequestValidator } from '../http/validator.js';
import { firstLink } from '../send/link-preview.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import type { CloudMediaStore } from './cloud-media.js';
import type { TemplateStore } from './cloud-templates.js';
import type { TemplateSend } from './template-render.js';
import { cloudContacts, interactiveAction } from './cloud-schemas.js';
import type { ParleySend } from './parley-send.js';

const validContacts = new RequestValidator().body(cloudContacts);
const validAction = new RequestValidator().body(interactiveAction);

/** A media object; `null` members (Chatwoot's `caption: null`) mean none. */
type Media = { id?: string; link?: string; caption?: string | null; filename?: string | null };
type Text = { text: string };
interface Interactive {
  type: 'button' | 'cta_url' | 'list';
  header?: { type: 'text'; text: string };
  body: Text;
  footer?: Text;
  /** The action object, or its JSON text (Chatwoot sends it so). */
  action: InteractiveAction | string;
}
interface InteractiveAction {
  buttons?: { type: 'reply'; reply: { id: string; title: string } }[];
  name?: 'cta_url';
  parameters?: { display_text: string; url: string };
  button?: string;
  sections?: { title?: string; rows: { id: string; title: string; description?: string }[] }[];
}
interface CloudContact { name: { formatted_name: string }; phones?: { phone?: string; wa_id?: string }[]; org?: { company?: string } }

/** The validated body of `POST /{version}/{phone-number-id}/messages` (cloud-schemas.ts). */
export interface CloudMessage {
  messaging_product: 'whatsapp';
  to?: string;
  type?: 'text' | 'image' | 'audio' | 'video' | 'document' | 'sticker' | 'location' | 'contacts' | 'reaction' | 'interactive' | 'template';
  context?: { message_id: string } | null;
  text?: { body: string; preview_url?: boolean };
  image?: Media; audio?: Media; video?: Media; document?: Media; sticker?: Media;
  location?: { latitude: number; longitude: number; name?: string; address?: string };
  contacts?: CloudContact[] | string;
  reaction?: { message_id: string; emoji: string };
  interactive?: Interactive;
  template?: TemplateSend;
  status?: 'read';
  message_id?: string;
  typing_indicator?: { type: 'text' };
}

/** The member named by `type`, or 400 naming it. */
function member<K extends keyof CloudMessage>(body: CloudMessage, key: K): NonNullable<CloudMessage[K]> {
  const value = body[key];
  if (value === undefined) throw new ValidationError(`${String(key)} is required when type is ${body.type ?? 'text'}`, { fields: [{ field: String(key), message: 'is required' }] });
  return value as NonNullable<CloudMessage[K]>;
}

/** `to`, or 400: every type but a reaction's target decides the chat through it. */
function recipient(body: CloudMessage): string {
  if (!body.to) throw new ValidationError('to is required', { fields: [{ field: 'to', message: 'is required' }] });
  return body.to;
}

/**
 * What a media object sends as: a `link` as it is (the media resolver fetches it, through the SSRF
 * guard and the instance's proxy), an uploaded `id` as the data URI of its stored bytes.
 */
async function mediaUrl(store: CloudMediaStore, runtime: InstanceRuntime, media: Media, field: string): Promise<{ url: string; mimeType?: string; fileName?: string }> {
  if ((media.id === undefined) === (media.link === undefined)) {
    throw new ValidationError(`${field} needs exactly one of id and link`, { fields: [{ field, message: 'needs exactly one of id and link' }] });
  }
  if (media.link !== undefined) return { url: media.link };
  const found = await store.get(runtime, media.id!);
  return { url: `data:${found.mimeType};base64,${found.blob.data.toString('base64')}`, mimeType: found.mimeType, ...(found.fileName ? { fileName: found.fileName } : {}) };
}

/** A list's sections and rows as a text (the channel has no list message; docs/cloud-api.md). */
function listText(i: Interactive, action: InteractiveAction): string {
  const lines = [i.body.text];
  for (const section of action.sections ?? []) {
    lines.push('', ...(section.title ? [`*${section.title}*`] : []));
    for (const row of section.rows) lines.push(`• ${row.title}${row.description ? ` — ${row.description}` : ''}`);
  }
  if (i.footer) lines.push('', i.footer.text);
  return lines.join('\n');
}

function interactiveSend(to: string, i: Interactive): ParleySend {
  const action = typeof i.action === 'string' ? fromJsonText<InteractiveAction>(i.action, validAction, 'body.interactive.action') : i.action;
  const header = i.header ? { header: { title: i.header.text } } : {};
  const footer = i.footer ? { footer: i.footer.text } : {};
  if (i.type === 'button') {
    const buttons = action.buttons;
    if (!buttons) throw new ValidationError('interactive.action.buttons is required for a button message', { fields: [{ field: 'interactive.action.buttons', message: 'is required' }] });
    return { suffix: 'button_reply', body: { to, ...header, ...footer, text: i.body.text, buttons: buttons.map((b) => ({ type: 'quick_reply' as const, id: b.reply.id, text: b.reply.title })) } };
  }
  if (i.type === 'cta_url') {
    const p = action.parameters;
    if (!p) throw new ValidationError('interactive.action.parameters is required for a cta_url message', { fields: [{ field: 'interactive.action.parameters', message: 'is required' }] });
    return { suffix: 'button_action', body: { to, ...header, ...footer, text: i.body.text, buttons: [{ type: 'cta_url', text: p.display_text, url: p.url }] } };
  }
  if (!action.sections) throw new ValidationError('interactive.action.sections is required for a list message', { fields: [{ field: 'interactive.action.sections', message: 'is required' }] });
  return { suffix: 'text', body: { to, text: i.header ? `*${i.header.text}*\n${listText(i, action)}` : listText(i, action) } };
}

/**
 * A member a client sent as JSON text (Graph API parameters may be JSON-encoded: whatsapp-api-js
 * sends `contacts` so, Chatwoot `interactive.action`), parsed and held to the member's schema (400
 * naming the field otherwise).
 */
function fromJsonText<T>(value: string, validator: typeof validContacts, field: string): T {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ValidationError(`${field} is neither its JSON value nor that value's JSON text`, { fields: [{ field, message: 'is not JSON' }] });
  }
  check(validator, parsed, field);
  return parsed as T;
}

/** `contacts` as an array. */
function contactList(value: CloudContact[] | string): CloudContact[] {
  return typeof value === 'string' ? fromJsonText<CloudContact[]>(value, validContacts, 'body.contacts') : value;
}

function contactsSend(to: string, contacts: CloudContact[]): ParleySend {
  const cards = contacts.map((c) => {
    const phone = c.phones?.find((p) => p.wa_id || p.phone);
    if (!phone) throw new ValidationError('contacts[].phones needs a phone or wa_id: a contact card carries a number', { fields: [{ field: 'contacts.phones', message: 'needs a phone' }] });
    return { fullName: c.name.formatted_name, phoneNumber: (phone.wa_id || phone.phone)!, ...(c.org?.company ? { organization: c.org.company } : {}) };
  });
  if (cards.length === 1) return { suffix: 'contact', body: { to, contact: cards[0]! } };
  return { suffix: 'contacts', body: { to, displayName: `${cards.length} contacts`, contacts: cards } };
}

/**
 * Maps a Cloud API message to the Parley send
 * that delivers it; the send pipeline validates it further as every REST send.
 */
export async function parleySend(store: CloudMediaStore, templates: TemplateStore, runtime: InstanceRuntime, body: CloudMessage): Promise<ParleySend> {
  const type = body.type ?? 'text';
  if (type === 'reaction') {
    const r = member(body, 'reaction');
    return { suffix: 'reaction', body: { msgId: r.message_id, text: r.emoji } };
  }
  const to = recipient(body);
  switch (type) {
    case 'text': {
      const t = member(body, 'text');
      // The Cloud API previews the first link when asked and sends a text without one as it is; Parley's linkPreview refuses that.
      return { suffix: 'text', body: { to, text: t.body, ...(t.preview_url && firstLink(t.body) ? { linkPreview: true } : {}) } };
    }
    case 'image':
    case 'video': {
      const m = member(body, type);
      const { url } = await mediaUrl(store, runtime, m, type);
      return { suffix: type, body: { to, url, ...(m.caption ? { caption: m.caption } : {}) } };
    }
    case 'audio':
    case 'sticker':
      return { suffix: type, body: { to, url: (await mediaUrl(store, runtime, member(body, type), type)).url } };
    case 'document': {
      const m = member(body, 'document');
      const media = await mediaUrl(store, runtime, m, 'document');
      const fileName = m.filename ?? media.fileName ?? 'document';
      // A link's type is the one the media resolver finds; a data URI states it.
      return { suffix: 'document', body: { to, url: media.url, mimetype: media.mimeType ?? mimeOfName(fileName), fileName, ...(m.caption ? { caption: m.caption } : {}) } };
    }
    case 'location': {
      const l = member(body, 'location');
      const address = [l.name, l.address].filter(Boolean).join('\n');
      return { suffix: 'location', body: { to, location: { latitude: l.latitude, longitude: l.longitude, ...(address ? { address } : {}) } } };
    }
    case 'contacts':
      return contactsSend(to, contactList(member(body, 'contacts')));
    case 'interactive':
      return interactiveSend(to, member(body, 'interactive'));
    case 'template':
      return templates.render(runtime.id, to, member(body, 'template'));
  }
}

/** A document link's MIME type by its file name's extension (what the Cloud API infers); octet-stream otherwise. */
function mimeOfName(fileName: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase();
  return DOCUMENT_TYPES[ext ?? ''] ?? 'application/octet-stream';
}

const DOCUMENT_TYPES: Record<string, string> = {
  pdf: 'application/pdf', txt: 'text/plain', csv: 'text/csv', doc: 'application/msword', xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  zip: 'application/zip', json: 'application/json',
};
