import { defineFormatPlugin } from '@parley/core';
import { NativeFormat } from './native.format.js';

export { NativeFormat } from './native.format.js';
export type { NativeContent, NativeData, NativeMedia, NativeMessage, NativeWebhookPayload } from './native-payload.js';

/** Registers the `native` webhook format. It takes no options. */
export default defineFormatPlugin('@parley/webhook-native', 'native', () => new NativeFormat());
