import { definePlugin } from '@parley/core';
import { CloudApiFormat } from './cloud-api.format.js';
import { MetaFormat } from './meta.format.js';

export { MAIN_ENTRY_PREFIX } from './envelope.js';
export { CLOUD_API_OBJECT, CloudApiFormat, type CloudApiWebhookPayload } from './cloud-api.format.js';
export { hubSignatureHeaders, metaJson } from './hub-signature.js';
export { MetaFormat } from './meta.format.js';
export type {
  MetaContact, MetaContent, MetaError, MetaField, MetaMedia, MetaMessage, MetaMetadata, MetaStatus, MetaValue, MetaWebhookPayload,
} from './meta-payload.js';

/**
 * Registers the `meta` webhook format and `cloud-api`, the WhatsApp Cloud API's own set. No options
 * (the service tag is a server setting).
 */
export default definePlugin<Record<string, never>>({
  name: '@parley/webhook-meta',
  kind: 'webhook-format',
  provides: { formats: ['meta', 'cloud-api'] },
  coreVersion: '^0.1.0',
  optionsSchema: { type: 'object', properties: {}, additionalProperties: false },
  register({ formats }) {
    formats.add(new MetaFormat());
    formats.add(new CloudApiFormat());
  },
});
