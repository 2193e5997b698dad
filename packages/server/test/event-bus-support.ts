import type { ChannelEvent, InstanceRecord } from '@parley/core';
import type { InstanceRegistry } from '../src/instances/instance-registry.js';
import type { InstanceRuntime } from '../src/instances/instance-runtime.js';

/** A clock the test moves (the testkit's FakeClock depends on this package). */
export class TestClock {
  private t = Date.UTC(2026, 0, 1);
  now(): number { return this.t; }
  advance(ms: number): void { this.t += ms; }
}

/** A registry whose every instance is loaded, with a bare record: what the event bus needs of one. */
export function registry(): InstanceRegistry {
  return {
    publishTo: () => undefined,
    byIdOrThrow: async (id: string) => ({ id, record: { id, name: id } as unknown as InstanceRecord }) as unknown as InstanceRuntime,
  } as unknown as InstanceRegistry;
}

/** A presence event of the chat `<n>@s.whatsapp.net`. */
export const presence = (n: number) => ({ type: 'presence', chatJid: `${n}@s.whatsapp.net`, presence: 'available' }) as never;
/** The chat an event of {@link presence} names. */
export const chatOf = (event: ChannelEvent) => (event as unknown as { chatJid: string }).chatJid;
