import type { RunningSimulator } from '@parley/whatsapp-sim';
import type { TestServer } from './test-server.js';

/** A message as a simulated phone decrypted it (`Simulator.received`). */
export type PhoneMessage = ReturnType<RunningSimulator['simulator']['received']>[number];

/** Waits until the phone of `number` has decrypted the message `id`; answers it. */
export function phoneGot(sim: RunningSimulator, t: TestServer, number: string, id: string, what = 'the phone to decrypt it'): Promise<PhoneMessage> {
  return t.waitFor(() => sim.simulator.received(number).find((m) => m.id === id), 15_000, what);
}

/**
 * The one content member of a decrypted `proto.Message` (`imageMessage`, `pollCreationMessageV3`…),
 * looking through the wrappers Baileys adds (`messageContextInfo` beside it, `viewOnce`/`ephemeral`
 * around it); answers its name and value.
 */
export function memberOf(message: Record<string, unknown>): [string, Record<string, any>] {
  const entries = Object.entries(message).filter(([name]) => name !== 'messageContextInfo');
  if (entries.length !== 1) throw new Error(`expected one content member, got ${entries.map(([n]) => n).join(', ')}`);
  const [name, value] = entries[0]! as [string, Record<string, any>];
  if (/^(viewOnce|ephemeral|documentWithCaption)Message/.test(name) && value.message) return memberOf(value.message);
  return [name, value];
}
