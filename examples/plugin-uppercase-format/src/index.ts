import { definePlugin, type ChannelEventType } from '@parley/core';
import { UppercaseFormat } from './uppercase.format.js';

export { UppercaseFormat, type UppercasePayload } from './uppercase.format.js';

/** Options of the plugin, as written in the server configuration. */
export interface UppercaseOptions {
  /** Event types delivered; everything else is skipped. Default: messages and connection changes. */
  events: ChannelEventType[];
  /** Name of the HMAC-SHA256 signature header. Default `X-Uppercase-Signature`. */
  signatureHeader: string;
}

/**
 * `@parley-example/webhook-uppercase`: registers the `uppercase` webhook format. Load it with
 * `{ "package": "./examples/plugin-uppercase-format/dist/src/index.js" }` (a path relative to the
 * config file) or, once published, by its package name.
 */
export default definePlugin<UppercaseOptions>({
  name: '@parley-example/webhook-uppercase',
  kind: 'webhook-format',
  provides: { formats: ['uppercase'] },
  coreVersion: '^0.1.0',
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      events: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        uniqueItems: true,
        minItems: 1,
        default: ['message', 'connection'],
      },
      signatureHeader: { type: 'string', pattern: '^[A-Za-z0-9-]+$', default: 'X-Uppercase-Signature' },
    },
  },
  register({ formats, options, logger }) {
    formats.add(new UppercaseFormat(new Set(options.events), options.signatureHeader));
    logger.debug({ events: options.events }, 'uppercase webhook format registered');
  },
});
