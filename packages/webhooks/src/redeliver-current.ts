import { decodeStored } from '@parley/core';
import type { ChannelEvent, DeadLetter, InstanceRecord, NewDelivery, Storage } from '@parley/core';

/** Dead letters read per page while selecting them. */
const PAGE = 500;
const ULID_DIGITS = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** What a redelivery to the current settings did. */
export interface CurrentRedelivery {
  /** Dead letters whose event was queued again for the current settings (and that are no longer dead letters). */
  redelivered: number;
  /** Dead letters left as they were: their event is no longer in the event log, or routes nowhere now. */
  kept: { id: string; reason: 'event_expired' | 'not_routed' }[];
}

/** What the engine lends: its routing and rendering of one event for an instance, as for a new event. */
export interface CurrentRedeliveryDeps {
  storage: Storage;
  now: number;
  /** The deliveries `event` gets under the instance's settings as they are now (URL, formats, switches). */
  route(event: ChannelEvent, instance: InstanceRecord): NewDelivery[];
}

/** The id just before a ULID (so that an exclusive `after` read starts at the ULID itself), or undefined for the first one. */
function idBefore(id: string): string | undefined {
  const digits = [...id];
  for (let i = digits.length - 1; i >= 0; i--) {
    const at = ULID_DIGITS.indexOf(digits[i]!);
    if (at > 0) {
      digits[i] = ULID_DIGITS[at - 1]!;
      return digits.join('');
    }
    digits[i] = ULID_DIGITS[ULID_DIGITS.length - 1]!;
  }
  return undefined;
}

/** The logged event with this id, or undefined once the event log no longer keeps it. */
async function loggedEvent(storage: Storage, instance: string, id: string): Promise<ChannelEvent | undefined> {
  const after = idBefore(id);
  const [entry] = await storage.events.read({ instance, ...(after ? { after } : {}), limit: 1 });
  return entry?.id === id ? decodeStored<ChannelEvent>(entry.event) : undefined;
}

async function selectDeadLetters(storage: Storage, instance: string, ids?: string[]): Promise<DeadLetter[]> {
  const wanted = ids ? new Set(ids) : undefined;
  const out: DeadLetter[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await storage.deliveries.deadLetters(instance, { limit: PAGE, offset });
    out.push(...page.items.filter((letter) => !wanted || wanted.has(letter.id)));
    if (page.items.length < PAGE || offset + PAGE >= page.total) return out;
  }
}

/**
 * Redelivers dead letters (all of the instance, or `ids`) to the instance's current webhook settings:
 * each letter's event is read back from the event log and routed and rendered as a new event would be
 * now (the URL of its type, every current format; the signing secret is always read at sending time).
 * A delivery that comes out the same as a dead letter (same URL and format) revives that letter; the
 * others are queued, due now, and the letters they replace are deleted only after they are stored, so a
 * crash in between leaves a letter to redeliver again rather than losing it. Letters whose event the
 * log no longer keeps, or which the current settings route nowhere (webhooks off, no URL), are kept.
 */
export async function redeliverToCurrent(deps: CurrentRedeliveryDeps, instance: InstanceRecord, ids?: string[]): Promise<CurrentRedelivery> {
  const { storage } = deps;
  const letters = await selectDeadLetters(storage, instance.id, ids);
  const byEvent = new Map<string, DeadLetter[]>();
  for (const letter of letters) byEvent.set(letter.eventId, [...(byEvent.get(letter.eventId) ?? []), letter]);
  const result: CurrentRedelivery = { redelivered: 0, kept: [] };
  for (const [eventId, group] of byEvent) {
    const event = await loggedEvent(storage, instance.id, eventId);
    const deliveries = event ? deps.route(event, instance).map((d) => ({ ...d, createdAt: deps.now })) : [];
    if (deliveries.length === 0) {
      result.kept.push(...group.map((letter) => ({ id: letter.id, reason: event ? 'not_routed' as const : 'event_expired' as const })));
      continue;
    }
    const letterIds = new Set(group.map((letter) => letter.id));
    const revived = deliveries.filter((d) => letterIds.has(d.id)).map((d) => d.id);
    const fresh = deliveries.filter((d) => !letterIds.has(d.id));
    if (fresh.length) await storage.deliveries.enqueue(fresh);
    if (revived.length) await storage.deliveries.redeliver(instance.id, revived);
    const replaced = group.map((letter) => letter.id).filter((id) => !revived.includes(id));
    if (replaced.length) await storage.deliveries.discardDeadLetters(instance.id, replaced);
    result.redelivered += group.length;
  }
  return result;
}
