import { definePlugin } from '@parley/core';
import { MetaFormat } from './meta.format.js';

export { MAIN_ENTRY_PREFIX } from './envelope.js';
export { hubSignatureHeaders } from './hub-signature.js';
export { MetaFormat } from './meta.format.js';
export type {
  MetaContact, MetaContent, MetaError, MetaField, MetaMedia, MetaMessage, MetaMetadata, MetaStatus, MetaValue, MetaWebhookPayload,
} from './meta-payload.js';

/** Registers the `meta` webhook format. It takes no options (the service tag is a server setting). */
export default definePlugin<Record<string, never>>({
  name: '@parley/webhook-meta',
  kind: 'webhook-format',
  provides: { formats: ['meta'] },
  coreVersion: '^0.1.0',
  optionsSchema: { type: 'object', properties: {}, additionalProperties: false },
  register({ formats }) {
    formats.add(new MetaFormat());
  },
});
