import {
  ConflictError, UniqueClaimConflictError, type ChannelDriver, type InstanceRepository, type UniqueClaim, type UniqueOptionLookup,
} from '@parley/core';

/**
 * The storage claims behind {@link ChannelDriver.uniqueOptions}: one namespace per driver and member
 * (`sandbox:number`), so uniqueness is an indexed lookup and never a scan of every instance.
 */
function namespaceOf(driver: ChannelDriver, member: string): string {
  return `${driver.name}:${member}`;
}

/** Indexed lookups a driver's `instanceOptions` may use to assign a free value. */
export function uniqueLookup(instances: InstanceRepository, driver: ChannelDriver): UniqueOptionLookup {
  return { taken: async (member, value) => (await instances.claimHolder(namespaceOf(driver, member), value)) !== null };
}

/** The claims an instance with these normalized options makes (string members only). */
export function uniqueClaims(driver: ChannelDriver, options: Record<string, unknown>): UniqueClaim[] {
  return (driver.uniqueOptions ?? []).flatMap((member) => {
    const value = options[member];
    return typeof value === 'string' ? [{ namespace: namespaceOf(driver, member), value }] : [];
  });
}

/**
 * A refused claim as the API answers it: 409 `<member>_taken`, "`<driver> <member> <value>` is taken"
 * (the sandbox's `number_taken` of before). Other errors pass through.
 */
export function takenError(driver: ChannelDriver, err: unknown): unknown {
  if (!(err instanceof UniqueClaimConflictError)) return err;
  const member = err.claim.namespace.slice(driver.name.length + 1);
  return new ConflictError(`${driver.name} ${member} ${err.claim.value} is taken`, `${member}_taken`);
}
