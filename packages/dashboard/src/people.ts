import type { OperationResponse } from '@parley/client';
import { useEffect, useState } from 'preact/hooks';

/** A contact of the address book (`GET /{key}/contacts`). */
export type Contact = OperationResponse<'listContacts'>['data'][number];

/** Whether a JID is a person's phone-number JID (`5511…@s.whatsapp.net`, a device suffix allowed). */
function phoneJid(jid: string): string | undefined {
  return /^(\d{6,15})(?::\d+)?@s\.whatsapp\.net$/.exec(jid)?.[1];
}

/** libphonenumber's formatter, once its module (with its metadata, ~140 kB) is loaded. */
let international: ((e164: string) => string | undefined) | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads libphonenumber (its own chunk: views without phone numbers never load it) and re-renders the
 * caller once it is there; until then numbers are shown as `+<digits>`.
 */
export function usePhoneFormat(): void {
  const [, setLoaded] = useState(!!international);
  useEffect(() => {
    if (international) return;
    let alive = true;
    loading ??= import('libphonenumber-js/min').then((lib) => {
      international = (e164) => lib.parsePhoneNumberFromString(e164)?.formatInternational();
    });
    void loading.then(() => alive && setLoaded(true), () => undefined);
    return () => { alive = false; };
  }, []);
}

/**
 * A phone number as people write it, in its country's international format (`+55 11 90000 0401`),
 * with libphonenumber's metadata; digits it cannot place (or before it is loaded) as `+<digits>`.
 */
export function formatPhone(digits: string): string {
  const e164 = `+${digits.replace(/\D/g, '')}`;
  return international?.(e164) ?? e164;
}

/** What a chat or sender is called: the given name, else the formatted phone number, else a kind of chat. */
export function personLabel(jid: string, names: readonly (string | null | undefined)[] = []): string {
  // A "name" that is an address (channels name a chat by its JID or number when they know no name) is none.
  const name = names.find((n) => typeof n === 'string' && n.trim() !== '' && !n.includes('@') && !/^\+?[\d\s()-]+$/.test(n));
  if (name) return name.trim();
  const digits = phoneJid(jid);
  if (digits) return formatPhone(digits);
  if (jid.endsWith('@g.us')) return 'Group without a name';
  if (jid.endsWith('@lid')) return 'Hidden number (LID)';
  if (jid.endsWith('@newsletter')) return 'Channel';
  return /^\d{6,15}$/.test(jid) ? formatPhone(jid) : jid;
}

/** The address book by JID: a saved name first, then the name the person chose (`notify`, WhatsApp's push name). */
export function contactNames(contacts: readonly Contact[]): Map<string, string[]> {
  return new Map(contacts.map((c) => [c.id, [c.name, c.notify]]));
}
