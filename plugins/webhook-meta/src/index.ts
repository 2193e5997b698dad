import { defineFormatPlugin } from '@parley/core';
import { MetaFormat } from './meta.format.js';

export { MAIN_ENTRY_PREFIX } from './envelope.js';
export { hubSignatureHeaders } from './hub-signature.js';
export { MetaFormat } from './meta.format.js';
export type {
  MetaContact, MetaContent, MetaError, MetaField, MetaMedia, MetaMessage, MetaMetadata, MetaStatus, MetaValue, MetaWebhookPayload,
} from './meta-payload.js';

/** Registers the `meta` webhook format. It takes no options (the service tag is a server setting). */
export default defineFormatPlugin('@parley/webhook-meta', 'meta', () => new MetaFormat());
