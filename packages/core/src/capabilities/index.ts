import { CapabilityNotSupportedError } from '../errors.js';
import type { CallRejectCapability, CallsCapability } from './calls.js';
import type { CatalogCapability } from './catalog.js';
import type { ChatsCapability } from './chats.js';
import type { CommunitiesCapability } from './communities.js';
import type { ConnectionCapability, MobileRegistrationCapability } from './connection.js';
import type { ContactsCapability } from './contacts.js';
import type { GroupsCapability } from './groups.js';
import type { LabelsCapability } from './labels.js';
import type { MessagingCapability } from './messaging.js';
import type { ProfileCapability } from './profile.js';
import type { StatusCapability } from './status.js';

export * from './calls.js';
export * from './catalog.js';
export * from './chats.js';
export * from './communities.js';
export * from './connection.js';
export * from './contacts.js';
export * from './groups.js';
export * from './labels.js';
export * from './messaging.js';
export * from './profile.js';
export * from './status.js';

/**
 * The capabilities an adapter may have, one per family of spec section 4. What a channel cannot do
 * is absent — never a stub that throws.
 */
export interface ChannelCapabilities {
  connection?: ConnectionCapability;
  mobile?: MobileRegistrationCapability;
  profile?: ProfileCapability;
  messaging?: MessagingCapability;
  chats?: ChatsCapability;
  /** Full voice-call control; channels that can only reject calls expose `callReject`. */
  calls?: CallsCapability;
  callReject?: CallRejectCapability;
  labels?: LabelsCapability;
  contacts?: ContactsCapability;
  groups?: GroupsCapability;
  communities?: CommunitiesCapability;
  catalog?: CatalogCapability;
  status?: StatusCapability;
}

/** Name of a capability family. */
export type CapabilityName = keyof ChannelCapabilities;

/** Why a channel lacks a capability, when it is worth telling the caller. */
export type CapabilityGaps = Partial<Record<CapabilityName, string>>;

/**
 * Answers the capability or throws {@link CapabilityNotSupportedError} (HTTP 422
 * `capability_not_supported`, message `<channel> does not support <capability>[: reason]`).
 */
export function requireCapability<K extends CapabilityName>(
  adapter: { channel: string; capabilities: ChannelCapabilities; capabilityGaps?: CapabilityGaps },
  name: K,
): NonNullable<ChannelCapabilities[K]> {
  const cap = adapter.capabilities[name];
  if (!cap) throw new CapabilityNotSupportedError(adapter.channel, name, adapter.capabilityGaps?.[name]);
  return cap as NonNullable<ChannelCapabilities[K]>;
}
