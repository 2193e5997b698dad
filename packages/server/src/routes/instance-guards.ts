import { requireCapability, toJid, ValidationError, type CapabilityName, type ChannelCapabilities } from '@parley/core';
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
 * A person's JID from a number or a JID (`@s.whatsapp.net` or `@lid`): 400 naming `field` for
 * anything else, groups and broadcasts included.
 */
export function personJid(value: string, field: string): string {
  const jid = toJid(value, field);
  if (!/@(s\.whatsapp\.net|lid)$/.test(jid)) {
    throw new ValidationError(`${field} must be a phone number or a contact JID, not a group or broadcast`);
  }
  return jid;
}
