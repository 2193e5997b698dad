import { definePlugin } from '@parley/core';
import { NativeFormat } from './native.format.js';

export { NativeFormat } from './native.format.js';
export type { NativeContent, NativeData, NativeMedia, NativeMessage, NativeWebhookPayload } from './native-payload.js';

/** Registers the `native` webhook format. It takes no options. */
export default definePlugin<Record<string, never>>({
  name: '@parley/webhook-native',
  kind: 'webhook-format',
  provides: { formats: ['native'] },
  coreVersion: '^0.1.0',
  optionsSchema: { type: 'object', properties: {}, additionalProperties: false },
  register({ formats }) {
    formats.add(new NativeFormat());
  },
});
