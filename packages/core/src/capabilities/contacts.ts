import type { ContactStatus, LidMapping } from '../domain/resources.js';

/** Contact operations (spec 4.8 registered, 4.9). Listing comes from storage, fed by events. */
export interface ContactsCapability {
  /** Adds or renames a contact in the address book. */
  save(jid: string, name: string): Promise<void>;
  remove(jid: string): Promise<void>;
  block(jid: string): Promise<void>;
  unblock(jid: string): Promise<void>;
  blocked(): Promise<string[]>;
  status(jid: string): Promise<ContactStatus>;
  /** Clears the end-to-end session with the contact (the next message renegotiates). */
  clearSession(jid: string): Promise<void>;
  resolveLids(lids: string[]): Promise<LidMapping[]>;
  /** Whether `number` (digits) has an account on the channel. */
  isRegistered(number: string): Promise<{ registered: boolean; jid?: string }>;
}
