import { s, type JsonSchema } from '../http/schema.js';

const text = (max: number) => s.text(max);
const mediaObject = (extra: Record<string, JsonSchema> = {}) => s.object({
  id: s.text(128, { description: 'A media id answered by POST /{version}/{phone-number-id}/media.' }),
  link: s.text(4096, { description: 'An http(s) URL Parley fetches (the SSRF guard and the instance\'s proxy apply).' }),
  ...extra,
});
const interactiveText = s.object({ text: text(4096) }, ['text']);

/** An optional member a client may send as `null` for "none" (Ruby's nil, as Chatwoot's bodies carry `context: null`). */
const orNull = (schema: JsonSchema): JsonSchema => s.nullable(schema);

/** `interactive.action`: reply buttons, a cta_url's parameters, or a list's button and sections. */
export const interactiveAction = s.object({
  buttons: s.array(s.object({ type: s.enum(['reply']), reply: s.object({ id: text(256), title: text(20) }, ['id', 'title']) }, ['type', 'reply']), { minItems: 1, maxItems: 3 }),
  name: s.enum(['cta_url']),
  parameters: s.object({ display_text: text(20), url: text(2048) }, ['display_text', 'url']),
  button: text(20),
  sections: s.array(s.object({
    title: text(24),
    rows: s.array(s.object({ id: text(200), title: text(24), description: text(72) }, ['id', 'title']), { minItems: 1, maxItems: 10 }),
  }, ['rows']), { minItems: 1, maxItems: 10 }),
});

/** `interactive`: the `button`, `cta_url` and `list` kinds (docs/cloud-api.md says how each is sent). */
const interactive = s.object({
  type: s.enum(['button', 'cta_url', 'list']),
  header: s.openObject({ type: s.enum(['text']), text: text(60) }, ['type', 'text']),
  body: interactiveText,
  footer: interactiveText,
  action: { anyOf: [interactiveAction, s.string({ minLength: 2, maxLength: 65536, description: 'The same object as JSON text (Chatwoot sends it so).' })] },
}, ['type', 'body', 'action']);

/** One contact card; `contacts` is an array of them (or its JSON text, as whatsapp-api-js sends it). */
export const cloudContacts = s.array(s.object({
  name: s.openObject({ formatted_name: text(256) }, ['formatted_name']),
  phones: s.array(s.openObject({ phone: text(32), wa_id: text(32), type: s.string() }), { maxItems: 20 }),
  org: s.openObject({ company: s.string({ maxLength: 256 }) }),
  emails: s.array(s.anyObject(), { maxItems: 20 }),
  urls: s.array(s.anyObject(), { maxItems: 20 }),
  addresses: s.array(s.anyObject(), { maxItems: 20 }),
  birthday: s.string(),
}, ['name']), { minItems: 1, maxItems: 50 });


/** The body of `POST /{version}/{phone-number-id}/messages`: a message of one `type`, or `status: "read"`. */
export const cloudMessageBody = s.object({
  messaging_product: s.enum(['whatsapp']),
  recipient_type: s.enum(['individual', 'group']),
  to: s.string({ minLength: 1, maxLength: 128, examples: ['5511999990000'], description: 'The recipient\'s number with country code, or a group JID.' }),
  type: s.enum(['text', 'image', 'audio', 'video', 'document', 'sticker', 'location', 'contacts', 'reaction', 'interactive', 'template'], { default: 'text' }),
  context: orNull(s.object({ message_id: text(512) }, ['message_id'])),
  biz_opaque_callback_data: s.string({ maxLength: 512 }),
  text: s.object({ body: text(4096), preview_url: s.boolean() }, ['body']),
  image: mediaObject({ caption: orNull(text(1024)) }),
  audio: mediaObject({ voice: s.boolean({ description: 'Ignored: an Ogg/Opus audio goes as a voice note, any other as an audio file.' }) }),
  video: mediaObject({ caption: orNull(text(1024)) }),
  document: mediaObject({ filename: orNull(text(240)), caption: orNull(text(1024)) }),
  sticker: mediaObject(),
  location: s.object({ latitude: s.number({ minimum: -90, maximum: 90 }), longitude: s.number({ minimum: -180, maximum: 180 }), name: s.string({ maxLength: 1000 }), address: s.string({ maxLength: 1000 }) }, ['latitude', 'longitude']),
  contacts: { anyOf: [cloudContacts, s.string({ minLength: 2, maxLength: 65536, description: 'The same array as JSON text (Graph API parameters may be JSON-encoded).' })] },
  reaction: s.object({ message_id: text(512), emoji: s.string({ maxLength: 32 }) }, ['message_id', 'emoji']),
  interactive,
  template: s.object({
    name: s.text(512),
    language: s.object({ code: s.text(15), policy: s.enum(['deterministic']) }, ['code']),
    components: s.array(s.object({
      type: s.enum(['header', 'body', 'button']), sub_type: s.enum(['quick_reply', 'url']), index: { anyOf: [s.string({ pattern: '^[0-9]$' }), s.integer({ minimum: 0, maximum: 9 })] },
      parameters: s.array(s.object({
        type: s.enum(['text', 'payload', 'currency', 'date_time']), text: s.text(1024), payload: s.text(256), parameter_name: s.text(64),
        // Rendered as their fallback_value, as the Cloud API does where it does not localize them.
        currency: s.object({ fallback_value: s.text(256), code: s.string({ pattern: '^[A-Z]{3}$' }), amount_1000: s.integer({ minimum: 1 }) }, ['fallback_value', 'code', 'amount_1000']),
        date_time: s.openObject({ fallback_value: s.text(256) }, ['fallback_value']),
      }, ['type']), { maxItems: 100 }),
    }, ['type']), { maxItems: 20 }),
  }, ['name', 'language']),
  status: s.enum(['read']),
  message_id: text(512),
  typing_indicator: s.object({ type: s.enum(['text']) }, ['type']),
}, ['messaging_product'], {
  examples: [{ messaging_product: 'whatsapp', recipient_type: 'individual', to: '5511999990000', type: 'text', text: { preview_url: false, body: 'Hello from Parley' } }],
});

/** The success answer of a send. */
export const cloudSendAnswer = s.openObject({
  messaging_product: s.string({ const: 'whatsapp' }),
  contacts: s.array(s.openObject({ input: s.string(), wa_id: s.string() }, ['input', 'wa_id'])),
  messages: s.array(s.openObject({ id: s.string(), message_status: s.string() }, ['id'])),
}, ['messaging_product', 'messages']);

/** The success answer of `status: "read"`. */
export const cloudSuccess = s.openObject({ success: s.boolean({ const: true }) }, ['success']);

/** The path of every Cloud API route: the version segment (`v21.0`) and the phone number id (the instance id). */
export const VERSION_SEGMENT = /^v\d{1,3}\.\d{1,3}$/;
export const versionParam = s.string({ pattern: VERSION_SEGMENT.source, examples: ['v21.0'], description: 'Graph API version (any vN.N; Parley answers the same on all).' });

/** The token as a query parameter, which the Graph API takes beside the header (cloud-api docs). */
export const accessTokenParam = s.string({ minLength: 1, maxLength: 256, description: 'The instance key, when not sent as Authorization: Bearer.' });

/** Graph's `fields` query, which every Graph read takes. */
export const fieldsParam = s.string({ maxLength: 512, description: 'Comma-separated members to answer (default: every member Parley has); members Parley has no data for are left out.' });

/** The members of `answer` that `fields` names (all without it), and the `always` ones, as Graph answers `?fields=`. */
export function selectFields(answer: Record<string, unknown>, fields: string | undefined, always: readonly string[]): Record<string, unknown> {
  const wanted = fields?.split(',').map((f) => f.trim()).filter(Boolean);
  if (!wanted) return answer;
  return Object.fromEntries(Object.entries(answer).filter(([k]) => always.includes(k) || wanted.includes(k)));
}
