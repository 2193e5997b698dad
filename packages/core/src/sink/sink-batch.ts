import type { SinkBatchResult } from './sink.js';
import { withinTime } from './sink-options.js';

/** What {@link confirmedPrefix} found: a {@link SinkBatchResult}, and whether the bound ran out first. */
export interface ConfirmedPrefix extends SinkBatchResult {
  /** True when not every confirm settled within the bound (a connection that hangs, or an abort). */
  timedOut: boolean;
}

/**
 * Waits, within `timeoutMs` (or until `signal` aborts), for the confirms of messages published back to
 * back (`confirms[i]` settles with message i's confirm or refusal), and answers how many leading
 * messages were confirmed and, when not all, why the first other one was not: its refusal, or the bound
 * (`timeoutMessage`) when it had no answer.
 */
export async function confirmedPrefix(
  confirms: Promise<unknown>[], timeoutMs: number, timeoutMessage: string, signal?: AbortSignal,
): Promise<ConfirmedPrefix> {
  const outcomes: (true | Error | undefined)[] = new Array<true | Error | undefined>(confirms.length);
  const settled = Promise.all(confirms.map((confirm, i) => confirm.then(
    () => { outcomes[i] = true; },
    (err: unknown) => { outcomes[i] = err instanceof Error ? err : new Error(String(err)); },
  )));
  let bound: Error | undefined;
  await withinTime(settled, timeoutMs, timeoutMessage, signal).catch((err: unknown) => { bound = err as Error; });
  let confirmed = 0;
  while (confirmed < outcomes.length && outcomes[confirmed] === true) confirmed++;
  if (confirmed === outcomes.length) return { confirmed, timedOut: false };
  const first = outcomes[confirmed];
  return { confirmed, timedOut: bound !== undefined, error: first instanceof Error ? first : bound ?? new Error(timeoutMessage) };
}
