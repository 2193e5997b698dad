import { CHANNEL_ID_PATTERN, type AddressSchema, type ChannelDirectory } from '@parley/core';
import { describePattern } from '../http/ajv-errors.js';
import type { RouteDefinition } from '../http/route.js';
import type { JsonSchema } from '../http/schema.js';

/** Marker member of a slot: what the registered channels replace it with. */
const SLOT = 'x-parley-channels';

/**
 * Schemas are written once, but the channel set is open: the `provider` of sends and records and the
 * `to` of sends name a slot, and {@link bindChannelSlots} replaces every slot of the server's routes
 * with what its registered drivers declare — the same schema then drives validation, `/openapi.json`
 * and the generated client.
 */
export const channelSlots = {
  /** A channel id of the server: the enum of the registered wire channels. */
  provider: (): JsonSchema => Object.freeze({ [SLOT]: 'provider' }),
  /** The optional `provider` of a send (spec 1.6): the same enum, described with its default. */
  sendProvider: (): JsonSchema => Object.freeze({ [SLOT]: 'send-provider' }),
  /** The recipient of a send, described per channel from the drivers' declared addressing. */
  recipient: (): JsonSchema => Object.freeze({ [SLOT]: 'recipient' }),
  /**
   * An address on the instance's main channel (a chat, a contact, a label's chat, a call's peer): the
   * rule the main channels' addressing states (`schema`) when they all state the same one.
   */
  mainAddress: (): JsonSchema => Object.freeze({ [SLOT]: 'main-address' }),
  /**
   * A group (or community) id on the instance's main channel, as paths take it: the rule the main
   * channels' addressing states (`groups.schema`) when they all state the same one.
   */
  groupId: (): JsonSchema => Object.freeze({ [SLOT]: 'group-id' }),
};

/** The schema of a group id path parameter: the main channels' shared group-id rule, or any text up to 128 characters. */
function groupId(channels: ChannelDirectory): JsonSchema {
  const schemas = [...new Set(channels.mainChannels.map((channel) => channels.addressing(channel)!.groups?.schema))];
  const shared = schemas.length === 1 ? schemas[0] : undefined;
  if (!shared) return { type: 'string', minLength: 1, maxLength: 128, description: 'A group id of the instance\'s main channel.' };
  return { type: 'string', pattern: shared.pattern, examples: [shared.example], description: shared.description };
}

/** The schema of a main-channel address: the main channels' shared {@link AddressSchema}, or any text up to 128 characters. */
function mainAddress(channels: ChannelDirectory): JsonSchema {
  const schemas = [...new Set(channels.mainChannels.map((channel) => channels.addressing(channel)!.schema))];
  const shared = schemas.length === 1 ? schemas[0] : undefined;
  if (!shared) {
    const described = channels.mainChannels.map((channel) => `${channel}: ${channels.addressing(channel)!.description}`).join(' ');
    return { type: 'string', minLength: 1, maxLength: 128, description: `An address on the instance's main channel. ${described}`.trim() };
  }
  return {
    type: 'string', minLength: 1, maxLength: 128, pattern: describePattern(shared.pattern, shared.rule), examples: [shared.example], description: shared.description,
  };
}

/** The `provider` description of a send: the default is the instance's main channel. */
function providerDescription(channels: ChannelDirectory): string {
  const defaults = channels.mainChannels;
  return defaults.length === 1 ? `Channel to send through (default ${defaults[0]}).` : 'Channel to send through (default: the instance\'s main channel).';
}

function filled(slot: Record<string, unknown>, channels: ChannelDirectory): JsonSchema {
  const kind = slot[SLOT];
  if (kind === 'main-address') return mainAddress(channels);
  if (kind === 'group-id') return groupId(channels);
  if (kind === 'recipient') {
    const described = channels.channels.map((channel) => [channel, channels.addressing(channel)!.description] as const);
    const texts = [...new Set(described.map(([, text]) => text))];
    const description = texts.length <= 1
      ? texts[0] ?? 'Recipient address on the chosen channel.'
      : `Recipient, as the chosen channel addresses people: ${described.map(([channel, text]) => `${channel}: ${text}`).join(' ')}`;
    // The example is a phone number: what the default (main) channel addresses people by.
    return { type: 'string', minLength: 1, maxLength: 128, description, examples: ['5511999990000'] };
  }
  const description = kind === 'send-provider' ? { description: providerDescription(channels) } : {};
  // Without any driver there is no enum to give: any well-formed channel id, refused later as not configured.
  return channels.channels.length > 0
    ? { enum: [...channels.channels], ...description }
    : { type: 'string', pattern: CHANNEL_ID_PATTERN.source, ...description };
}

function bind(value: unknown, channels: ChannelDirectory): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => bind(item, channels));
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  if (SLOT in object) return filled(object, channels);
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(object)) {
    out[key] = bind(member, channels);
    if (out[key] !== member) changed = true;
  }
  return changed ? out : value;
}

/** Replaces the channel slots of every route's schemas with the registered channels (routes without slots are answered as they are). */
export function bindChannelSlots(routes: RouteDefinition[], channels: ChannelDirectory): RouteDefinition[] {
  return routes.map((route) => {
    const bound = { ...route };
    for (const member of ['params', 'query', 'body', 'response'] as const) {
      if (route[member] !== undefined) (bound as Record<string, unknown>)[member] = bind(route[member], channels);
    }
    return bound;
  });
}
