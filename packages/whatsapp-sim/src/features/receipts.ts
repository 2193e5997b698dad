import type { Account } from '../network/model.js';
import { unixNow } from '../network/network.js';
import { SimError } from '../network/errors.js';

export type ReceiptKind = 'delivery' | 'read' | 'played';

/**
 * How a phone sends its receipts: the time they carry (`t`, Unix seconds; the current time when unset)
 * and whether it reads every message as it arrives (delivery and read receipts back to back, as a phone
 * with the chat open does).
 */
export interface ReceiptSettings {
  /** The `t` every receipt of the phone carries, when set; unset: the time it is sent. */
  t: number | undefined;
  /** The phone reads what it receives at once: its read receipt follows the delivery one immediately. */
  readAtOnce: boolean;
}

/** A change of {@link ReceiptSettings}: `t: null` goes back to the current time. */
export interface ReceiptSettingsChange {
  t?: number | null;
  readAtOnce?: boolean;
}

/** Earliest receipt time accepted (2009-01-01, before WhatsApp existed) and latest (2100-01-01). */
const EARLIEST_T = 1_230_768_000;
const LATEST_T = 4_102_444_800;

/** A receipt time given through the control API: whole Unix seconds in a sensible range. */
export function receiptTime(t: unknown, field = 't'): number {
  if (typeof t !== 'number' || !Number.isInteger(t) || t < EARLIEST_T || t > LATEST_T) {
    throw new SimError(400, 'invalid_receipt_time', `${field} must be whole Unix seconds between ${EARLIEST_T} and ${LATEST_T}`, { field, value: t });
  }
  return t;
}

/** Each phone's receipt settings (all phones start answering at the current time, without reading). */
export class PhoneReceipts {
  private readonly settings = new Map<Account, ReceiptSettings>();

  of(account: Account): ReceiptSettings {
    return { ...(this.settings.get(account) ?? { t: undefined, readAtOnce: false }) };
  }

  /** Changes a phone's settings; bad input changes nothing (400 `invalid_receipt_settings` / `invalid_receipt_time`). */
  change(account: Account, change: ReceiptSettingsChange): ReceiptSettings {
    if (typeof change !== 'object' || change === null) throw new SimError(400, 'invalid_receipt_settings', 'the receipt settings must be an object', { field: 'body' });
    const unknown = Object.keys(change).filter((k) => k !== 't' && k !== 'readAtOnce');
    if (unknown.length) throw new SimError(400, 'invalid_receipt_settings', `unknown receipt settings: ${unknown.join(', ')}`, { field: unknown });
    if (change.readAtOnce !== undefined && typeof change.readAtOnce !== 'boolean') {
      throw new SimError(400, 'invalid_receipt_settings', 'readAtOnce must be a boolean', { field: 'readAtOnce' });
    }
    const next = this.of(account);
    if (change.t === null) next.t = undefined;
    else if (change.t !== undefined) next.t = receiptTime(change.t);
    if (change.readAtOnce !== undefined) next.readAtOnce = change.readAtOnce;
    this.settings.set(account, next);
    return { ...next };
  }

  /** The `t` of a receipt the phone sends now: the one asked for, else the phone's setting, else the current time. */
  timeOf(account: Account | undefined, asked?: number): string {
    if (asked !== undefined) return String(asked);
    const set = account ? this.settings.get(account)?.t : undefined;
    return set !== undefined ? String(set) : unixNow();
  }
}
