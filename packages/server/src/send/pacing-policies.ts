import { checkPacingPolicy, PACING_OFF, type ChannelDriver, type Clock, type PacingPolicy, type Storage } from '@parley/core';

/** The state namespace of an instance's policy: under the instance's prefix, so deleting the instance deletes it. */
const namespaceOf = (instance: string) => `${instance}:outbound`;
const ID = 'policy';
/**
 * How long a policy read from storage is reused. Servers sharing one store see another server's
 * `PUT /{key}/queue/policy` within this time; the server that took the PUT uses it at once.
 */
const CACHE_MS = 5_000;

/** A policy change as `PUT /{key}/queue/policy` takes it: members given replace the current ones. */
export type PolicyPatch = Partial<Omit<PacingPolicy, 'typing'>> & { typing?: Partial<PacingPolicy['typing']> };

/**
 * Each instance's pacing policy: its own, stored with the instance's state, or else its main
 * driver's default ({@link ChannelDriver.pacing}, {@link PACING_OFF} when the driver declares none),
 * with `maxQueued` from the server's `queue.maxQueued` unless the instance set one. Cached per
 * instance for {@link CACHE_MS}.
 */
export class PacingPolicies {
  private readonly cache = new Map<string, { policy: PacingPolicy; until: number }>();

  constructor(
    private readonly storage: Storage,
    private readonly drivers: Map<string, ChannelDriver>,
    private readonly defaultMaxQueued: number,
    private readonly clock: Clock,
  ) {}

  /** The default of a driver (by name). */
  defaultOf(driverName: string): PacingPolicy {
    return { ...(this.drivers.get(driverName)?.pacing ?? PACING_OFF), maxQueued: this.defaultMaxQueued };
  }

  async get(instance: string, driverName: string): Promise<PacingPolicy> {
    const now = this.clock.now();
    const cached = this.cache.get(instance);
    if (cached && cached.until > now) return cached.policy;
    const own = await this.storage.state.get<PacingPolicy>(namespaceOf(instance), ID);
    const policy = own ?? this.defaultOf(driverName);
    this.cache.set(instance, { policy, until: now + CACHE_MS });
    return policy;
  }

  /** Applies `patch` over the current policy, checks the result (400 naming the field) and stores it. */
  async set(instance: string, driverName: string, patch: PolicyPatch): Promise<PacingPolicy> {
    const current = await this.get(instance, driverName);
    const policy: PacingPolicy = { ...current, ...patch, typing: { ...current.typing, ...patch.typing } } as PacingPolicy;
    checkPacingPolicy(policy);
    await this.storage.state.put(namespaceOf(instance), ID, policy);
    this.cache.set(instance, { policy, until: this.clock.now() + CACHE_MS });
    return policy;
  }

  forget(instance: string): void {
    this.cache.delete(instance);
  }
}
