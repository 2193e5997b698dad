import { ValidationError } from '../errors.js';

/**
 * A wire channel: the `provider` of sends, stored messages and events. The set is open: the channels
 * of a server are those its channel plugins register (`whatsapp`, `instagram` and `messenger` ship
 * with Parley; a plugin may add any id matching {@link CHANNEL_ID_PATTERN}).
 */
export type ChannelName = 'whatsapp' | 'instagram' | 'messenger' | (string & {});

/**
 * Syntax of a channel id (wire channel or driver name): a lower-case letter, then up to 31 lower-case
 * letters, digits or dashes. Ids appear in URL paths (`/<driver>/webhook`) and JSON enums, so they
 * stay plain.
 */
export const CHANNEL_ID_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

/** True when `value` is a syntactically valid channel id. */
export function isChannelId(value: unknown): value is ChannelName {
  return typeof value === 'string' && CHANNEL_ID_PATTERN.test(value);
}

/** What an address names: one person, a group, or anything else a channel addresses (a broadcast list, a newsletter, status). */
export type AddressKind = 'person' | 'group' | 'other';

/**
 * How a channel addresses the people it talks to. Declared by every driver of the channel (drivers of
 * one channel must declare the same object). The host knows no channel's address format: it documents
 * the `to` of sends from {@link description} (and {@link pattern}), turns every address a caller gives
 * for the instance's main channel into the channel's form with {@link normalize} (400 naming the field),
 * tells groups from people with {@link kind}, and the webhook engine applies `allowNumber` only to
 * channels whose addresses are phone numbers, comparing {@link numberOf} of each address.
 *
 * The address a send finally reaches (a number the network files under another form, a recipient
 * it does not know) is the adapter's to answer, with `MessagingCapability.resolveRecipient`, called
 * with the normalized address before a send is accepted: it needs the connection, which a driver's
 * addressing does not have.
 *
 * Every member but `description` and `phoneNumbers` is optional; without them an address is any
 * non-blank text, used trimmed, naming a person.
 */
export interface ChannelAddressing {
  /** What `to` is on this channel, for the API reference (`Phone number with country code (digits), or a JID.`). */
  readonly description: string;
  /**
   * True when addresses are phone numbers (WhatsApp): the instance's `allowNumber` webhook filter
   * applies to this channel's events. False: its events are instance-level for that filter.
   */
  readonly phoneNumbers: boolean;
  /**
   * Optional: the rule of every address {@link normalize} accepts, as the request schemas of
   * main-channel address fields state it (the OpenAPI document shows it; it is checked before a
   * handler runs). Without it those fields take any text up to 128 characters.
   */
  readonly schema?: AddressSchema;
  /**
   * Turns an address as callers give it into the channel's form (WhatsApp: digits with `+`, spaces
   * or dashes, or a JID, into a JID). Throws ValidationError naming `field` (`body.to`) for anything
   * the channel cannot address. Pure and synchronous: no network.
   */
  normalize?(address: string, field: string): string;
  /** What a normalized address names (WhatsApp: `@g.us` is a group, a user or LID JID a person). */
  kind?(address: string): AddressKind;
  /** Phone-number channels: the number a normalized address carries (WhatsApp: the user part of a JID). */
  numberOf?(address: string): string;
  /**
   * Optional: how the channel names its groups (and communities) in paths (`/{key}/groups/{groupJid}`).
   * Without it a group id is any text up to 128 characters, handed to the adapter as it is.
   */
  readonly groups?: GroupAddressing;
}

/** How a channel names its groups (see {@link ChannelAddressing.groups}). */
export interface GroupAddressing {
  /**
   * The JSON Schema rule of a group id as paths take it, stated in the path schemas of the group and
   * community routes when every main channel of the server states the same one.
   */
  readonly schema: GroupIdSchema;
  /**
   * Turns a group id the path schema accepted into the channel's form (WhatsApp: `<digits>` into
   * `<digits>@g.us`). Pure and synchronous. Without it the id is used as it is.
   */
  normalize?(id: string): string;
}

/** The JSON Schema rule of a channel's group ids (see {@link GroupAddressing.schema}). */
export interface GroupIdSchema {
  /** JSON Schema `pattern` (ECMAScript, as ajv runs it) of every accepted group id. */
  readonly pattern: string;
  /** The path parameter's description in the API reference. */
  readonly description: string;
  /** An example group id. */
  readonly example: string;
}

/** {@link GroupAddressing.normalize} of `addressing`'s groups; the id as it is where the channel declares none. */
export function groupAddress(addressing: ChannelAddressing, id: string): string {
  return addressing.groups?.normalize ? addressing.groups.normalize(id) : id;
}

/** The JSON Schema rule of a channel's addresses (see {@link ChannelAddressing.schema}). */
export interface AddressSchema {
  /** JSON Schema `pattern` (ECMAScript, as ajv runs it) of every accepted address. */
  readonly pattern: string;
  /** The sentence a value the pattern refuses answers, after the field name (`must be a phone number …`). */
  readonly rule: string;
  /** The fields' description in the API reference. */
  readonly description: string;
  /** An example address. */
  readonly example: string;
}

/** The trimmed address, or 400 naming `field` when blank: what a channel without {@link ChannelAddressing.normalize} accepts. */
function plainAddress(address: string, field: string): string {
  const value = address.trim();
  if (!value) throw new ValidationError(`${field} must not be blank`);
  return value;
}

/** {@link ChannelAddressing.normalize} of `addressing`, or the trimmed, non-blank address where it has none. */
export function normalizeAddress(addressing: ChannelAddressing, address: string, field: string): string {
  return addressing.normalize ? addressing.normalize(address, field) : plainAddress(address, field);
}

/** {@link ChannelAddressing.kind} of `addressing`; a person where it has none. */
export function addressKind(addressing: ChannelAddressing, address: string): AddressKind {
  return addressing.kind ? addressing.kind(address) : 'person';
}

/**
 * {@link ChannelAddressing.numberOf} of `addressing`; where it has none, the digits an address starts
 * with (after an optional `+`), which is the number of an E.164 address and of `<digits>@<domain>` forms.
 */
export function addressNumber(addressing: ChannelAddressing, address: string): string {
  return addressing.numberOf ? addressing.numberOf(address) : /^\+?(\d*)/.exec(address)![1]!;
}
