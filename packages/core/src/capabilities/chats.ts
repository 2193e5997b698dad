import type { PrivacySettings } from '../domain/resources.js';

/** Chat management (spec 4.5). Listing and paging come from storage, fed by events. */
export interface ChatsCapability {
  markRead(jid: string, read: boolean): Promise<void>;
  pin(jid: string, pinned: boolean): Promise<void>;
  delete(jid: string): Promise<void>;
  subscribePresence(jid: string): Promise<void>;
  /** Disappearing-messages timer in seconds (0 turns it off). */
  setDisappearing(jid: string, expiration: number): Promise<void>;
  privacy(): Promise<PrivacySettings>;
  /**
   * Changes some privacy settings (each a category of `PRIVACY_VALUES` with one of its values, checked by
   * the caller) and answers all of them as they now are.
   */
  setPrivacy(settings: PrivacySettings): Promise<PrivacySettings>;
}
