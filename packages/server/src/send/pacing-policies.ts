import { checkPacingPolicy, PACING_OFF, type ChannelDriver, type PacingPolicy, type Storage } from '@parley/core';

/** The state namespace of an instance's policy: under the instance's prefix, so deleting the instance deletes it. */
const namespaceOf = (instance: string) => `${instance}:outbound`;
const ID = 'policy';

/** A policy change as `PUT /{key}/queue/policy` takes it: members given replace the current ones. */
export type PolicyPatch = Partial<Omit<PacingPolicy, 'typing'>> & { typing?: Partial<PacingPolicy['typing']> };

/**
 * Each instance's pacing policy: its own, stored with the instance's state, or else its main
 * driver's default ({@link ChannelDriver.pacing}, {@link PACING_OFF} when the driver declares none),
 * with `maxQueued` from the server's `queue.maxQueued` unless the instance set one. Cached per instance.
 */
export class PacingPolicies {
  private readonly cache = new Map<string, PacingPolicy>();

  constructor(
    private readonly storage: Storage,
    private readonly drivers: Map<string, ChannelDriver>,
    private readonly defaultMaxQueued: number,
  ) {}

  /** The default of a driver (by name). */
  defaultOf(driverName: string): PacingPolicy {
    return { ...(this.drivers.get(driverName)?.pacing ?? PACING_OFF), maxQueued: this.defaultMaxQueued };
  }

  async get(instance: string, driverName: string): Promise<PacingPolicy> {
    const cached = this.cache.get(instance);
    if (cached) return cached;
    const own = await this.storage.state.get<PacingPolicy>(namespaceOf(instance), ID);
    const policy = own ?? this.defaultOf(driverName);
    this.cache.set(instance, policy);
    return policy;
  }

  /** Applies `patch` over the current policy, checks the result (400 naming the field) and stores it. */
  async set(instance: string, driverName: string, patch: PolicyPatch): Promise<PacingPolicy> {
    const current = await this.get(instance, driverName);
    const policy: PacingPolicy = { ...current, ...patch, typing: { ...current.typing, ...patch.typing } } as PacingPolicy;
    checkPacingPolicy(policy);
    await this.storage.state.put(namespaceOf(instance), ID, policy);
    this.cache.set(instance, policy);
    return policy;
  }

  forget(instance: string): void {
    this.cache.delete(instance);
  }
}
