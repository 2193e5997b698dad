import {
  addressKind, normalizeAddress, requireCapability, ValidationError, type CapabilityName, type ChannelAddressing, type ChannelCapabilities,
} from '@parley/core';
import { ensureConnected, type InstanceRuntime } from '../instances/instance-runtime.js';

/**
 * A capability of the instance's main channel, for an operation that needs the connection: 422
 * `capability_not_supported` when the channel lacks it, then 409 `not_connected`, both before any
 * side effect.
 */
export function connectedCapability<K extends CapabilityName>(runtime: InstanceRuntime, name: K): NonNullable<ChannelCapabilities[K]> {
  const capability = requireCapability(runtime.main, name);
  ensureConnected(runtime);
  return capability;
}

/**
 * A person's address on the main channel, normalized by its `addressing` (WhatsApp: a user or LID
 * JID from a number or a JID): 400 naming `field` for anything else, groups and broadcasts included.
 */
export function personAddress(addressing: ChannelAddressing, value: string, field: string): string {
  const address = normalizeAddress(addressing, value, field);
  if (addressKind(addressing, address) !== 'person') {
    throw new ValidationError(`${field} must be a phone number or a contact JID, not a group or broadcast`);
  }
  return address;
}
