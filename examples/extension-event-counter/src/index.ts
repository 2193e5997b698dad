import { definePlugin, Tokens } from '@parley/core';
import { EventCounter } from './event-counter.js';

export { COUNTS_NAMESPACE, EventCounter, type EventCounterOptions, type EventCounts } from './event-counter.js';

/** The options of the plugin entry (`plugins[].options`). */
export interface EventCounterPluginOptions {
  logFile?: string;
  autoReply?: string;
}

/** The host services the subscriber needs, by token: the container resolves them (docs/plugins.md, "Host services"). */
const deps = { storage: Tokens.Storage, sends: Tokens.Sends, logger: Tokens.Logger };

export default definePlugin<EventCounterPluginOptions, typeof deps>({
  name: '@parley-example/extension-event-counter',
  kind: 'extension',
  coreVersion: '^0.1.0',
  provides: { subscribers: ['event-counter'] },
  deps,
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      logFile: { type: 'string', minLength: 1 },
      autoReply: { type: 'string', minLength: 1, maxLength: 4096 },
    },
  },
  register({ subscribers, options, deps: { storage, sends, logger } }) {
    subscribers.add(new EventCounter({ storage, sends, logger, ...options }));
  },
});
