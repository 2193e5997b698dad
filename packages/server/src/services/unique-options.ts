import {
  ConflictError, UniqueClaimConflictError, type ChannelDriver, type Clock, type InstanceRepository, type Logger, type Storage, type UniqueClaim,
  type UniqueOptionLookup,
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
 * The namespace of instance names. Without a colon, it is no driver's `<driver>:<member>` namespace.
 */
export const NAME_NAMESPACE = 'instance-name';

/**
 * The form in which two instance names are the same: Unicode NFC, without surrounding white space,
 * lower-cased: "Alice", "alice " and "ALICE" are one name, which no two instances can look alike by.
 */
export function nameKey(name: string): string {
  return name.normalize('NFC').trim().toLowerCase();
}

/** The claim an instance's name makes: none for an unnamed instance (any number may be unnamed). */
export function nameClaims(name: string): UniqueClaim[] {
  const value = nameKey(name);
  return value ? [{ namespace: NAME_NAMESPACE, value }] : [];
}

/**
 * A refused claim as the API answers it: 409 `name_taken` for the instance's `name` (its
 * `details.fields` naming `body.name`), else 409
 * `<member>_taken`, "`<driver> <member> <value>` is taken" (the sandbox's `number_taken` of before).
 * Other errors pass through.
 */
export function takenError(driver: ChannelDriver, err: unknown, name: string): unknown {
  if (!(err instanceof UniqueClaimConflictError)) return err;
  if (err.claim.namespace === NAME_NAMESPACE) {
    const message = `an instance named ${JSON.stringify(name.trim())} exists (names are unique, whatever their case)`;
    // `details.fields` as a 400 names its fields: a form shows the refusal beside the name.
    return new ConflictError(message, 'name_taken', { fields: [{ field: 'body.name', message }] });
  }
  const member = err.claim.namespace.slice(driver.name.length + 1);
  return new ConflictError(`${driver.name} ${member} ${err.claim.value} is taken`, `${member}_taken`);
}

/** State namespace recording which unique options have been claimed for every existing instance. */
const BACKFILLED = 'parley:unique-claims';

/**
 * Claims the unique options of instances created before their driver declared them, and the names of
 * instances created before names were unique (a store written by an older Parley), once per store and
 * namespace: a state document records it, so later starts cost one read per namespace. Two old
 * instances holding one value both keep running; the older one holds it, the later one's claim is
 * refused and logged (it keeps its name, which then names two instances: refer to them by id or key).
 */
export async function backfillUniqueClaims(storage: Storage, drivers: Map<string, ChannelDriver>, clock: Clock, logger: Logger): Promise<void> {
  const pending = new Set<string>();
  if (!(await storage.state.get(BACKFILLED, NAME_NAMESPACE))) pending.add(NAME_NAMESPACE);
  for (const driver of drivers.values()) {
    for (const member of driver.uniqueOptions ?? []) {
      const namespace = namespaceOf(driver, member);
      if (!(await storage.state.get(BACKFILLED, namespace))) pending.add(namespace);
    }
  }
  if (pending.size === 0) return;
  let claimed = 0;
  for (const record of await storage.instances.list()) {
    const driver = drivers.get(record.driver);
    const claims = [...nameClaims(record.name), ...(driver ? uniqueClaims(driver, record.driverOptions) : [])];
    for (const claim of claims.filter((c) => pending.has(c.namespace))) {
      try {
        await storage.instances.claim(record.id, [claim]);
        claimed++;
      } catch (err) {
        if (!(err instanceof UniqueClaimConflictError)) throw err;
        logger.warn({ instance: record.id, namespace: claim.namespace, value: claim.value }, 'instance shares a unique value with an older instance; left unclaimed');
      }
    }
  }
  for (const namespace of pending) await storage.state.put(BACKFILLED, namespace, { at: clock.now() });
  if (claimed > 0) logger.info({ claimed, namespaces: [...pending] }, 'unique values of existing instances claimed');
}
