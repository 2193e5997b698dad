import { ALLOW_NUMBER_PATTERN } from '@parley/core';
import { describePattern } from '../http/ajv-errors.js';
import { s, type JsonSchema } from '../http/schema.js';

/** The `{key}` path parameter. */
export const keyParams = s.object({ key: s.string({ description: 'Instance key (secret).' }) }, ['key']);

/** Path parameters `{key}` plus the given ones. */
export function keyAnd(more: Record<string, JsonSchema>): JsonSchema {
  return s.object({ key: s.string(), ...more }, ['key', ...Object.keys(more)]);
}

/** The start of a base64 data URI as the media resolver reads it (`data:<mime>[;k=v]*;base64,`). */
export const DATA_URI_PREFIX = describePattern('^data:[\\w.+-]+/[\\w.+-]+(?:;[\\w-]+=[\\w.-]+)*;base64,', 'must be a base64 data URI (data:<mime>;base64,<data>)');

/**
 * A URL field: a URI (`format: uri`) of at most 4096 characters, or a base64 data URI where media is
 * accepted. The scheme (http or https) and the SSRF guard are checked by the handler. `format` runs
 * only on strings within the length limit: ajv-formats' URI expression overflows the stack on
 * megabytes, so data URIs are checked by their prefix (the media resolver decodes the rest).
 */
export const urlField = s.string({
  minLength: 1, maxLength: 64 * 1024 * 1024, examples: ['https://example.com/media/file.jpg'],
  description: 'http or https URL (at most 4096 characters), or a base64 data URI where media is accepted (bounded by the media size limit).',
  if: { pattern: '^data:' },
  then: { pattern: DATA_URI_PREFIX },
  else: { if: { maxLength: 4096 }, then: { format: 'uri' }, else: { maxLength: 4096 } },
});

/** Webhook settings (spec 2.2); every member optional on write. A URL is a URI (`format: uri`) or empty. */
const webhookUrl = s.string({
  maxLength: 2048, description: 'http/https URL; empty means "use webhookMessage".',
  if: { minLength: 1, maxLength: 2048 }, then: { format: 'uri' },
});
export const webhookSettingsSchema = s.object({
  allowWebhook: s.boolean({ description: 'Master switch.' }),
  allowNumber: s.string({
    maxLength: 4096, pattern: ALLOW_NUMBER_PATTERN,
    description: '`all`, or a comma-separated list of phone numbers and group ids (6 to 20 digits, optional `+`) whose events are forwarded (see docs/webhooks.md).',
  }),
  webhookFormat: s.string({
    minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9-]*$',
    description: '`native`, `meta`, `both` (native and meta), `cloud-api` (exactly the WhatsApp Cloud API\'s webhooks, docs/cloud-api.md), or the name of a webhook-format plugin the server loaded.',
  }),
  webhookMessage: webhookUrl,
  webhookGroup: webhookUrl,
  webhookConnection: webhookUrl,
  webhookQrCode: webhookUrl,
  webhookMessageFromMe: webhookUrl,
  webhookHistory: webhookUrl,
});

/** The account user (spec 2.1). */
export const userSchema = s.nullable(s.openObject({
  id: s.string(), lid: s.string(), name: s.string(),
  imageProfile: s.string({ format: 'uri', description: 'Stable URL of the account picture (`GET /{key}/instance/profile/picture`): the picture, or a placeholder while none is set.' }),
}, ['id', 'imageProfile']));

/** What the main channel's connection is doing (extension; see docs/rest-api.md "Instance connection"). */
export const connectionSchema = s.openObject({
  status: s.enum(['disconnected', 'connecting', 'waiting_for_qr_scan', 'waiting_for_pairing_code', 'open', 'stopped']),
  lastError: s.openObject({
    code: s.integer({ description: "The channel's close code (WhatsApp: 408, 428, 440, …)." }),
    reason: s.string(),
    cause: s.enum(['dns', 'refused', 'timeout', 'reset', 'tls'], { description: 'Network-level cause, when the endpoint was never reached.' }),
    message: s.string(),
    at: s.integer({ description: 'Unix ms.' }),
  }, ['code', 'reason', 'message', 'at'], { description: 'The last failed attempt or close since the connection last opened.' }),
  failure: s.openObject({ code: s.integer(), reason: s.string(), attempts: s.integer() }, ['code', 'reason', 'attempts'], {
    description: 'Why reconnection stopped (`status` = `stopped`).',
  }),
  simulator: s.openObject({
    phones: s.array(s.string({ pattern: '^\\d{6,15}$' }), { description: 'Numbers of the simulated phones that can scan, the default first.' }),
    controlUrl: s.string({ format: 'uri', description: 'The simulator\'s own control API (loopback, no authentication), to drive its phones by hand.' }),
  }, ['phones'], {
    description: 'Present only when the channel runs on a simulated network (a development set-up): `POST /{key}/instance/simulated-scan` makes one of these phones scan the QR code shown.',
  }),
}, ['status'], { description: 'Extension: what the connection is doing; `health` is about account restrictions only.' });

/** The instance record of spec 2.1 plus Parley's documented extensions. */
export const instanceViewSchema = s.openObject({
  id: s.string({ description: 'Public instance id (extension): the `instance` of webhook payloads.' }),
  name: s.string({ description: 'Extension.' }),
  channel: s.string({ description: 'Main-channel driver (extension).' }),
  receive_status_message: s.boolean(),
  save_media: s.boolean(),
  receive_presence: s.boolean(),
  permission: s.integer(),
  mark_messages: s.boolean(),
  blocked: s.boolean(),
  user: userSchema,
  phoneConnected: s.boolean(),
  webhook: s.openObject((webhookSettingsSchema.properties as Record<string, JsonSchema>)),
  businessProfile: s.openObject({ wid: s.string(), description: s.string(), website: s.array(s.string()), category: s.string() }),
  health: s.enum(['healthy', 'restricted'], { description: 'Extension (spec 3 health): account restrictions, not the connection.' }),
  connection: connectionSchema,
  failure: s.openObject({ code: s.integer(), reason: s.string(), attempts: s.integer() }, [], { description: 'Extension: set when reconnection gave up.' }),
  links: s.anyObject({ description: 'Extension: linked social channels (secrets redacted).' }),
}, ['receive_status_message', 'save_media', 'receive_presence', 'permission', 'mark_messages', 'blocked', 'user', 'phoneConnected', 'webhook', 'businessProfile']);
