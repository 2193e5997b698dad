import type { MediaInput } from '../domain/outgoing.js';
import type { BusinessProfile } from '../domain/account.js';

/** The account's own profile (spec 4.1 profile/status/picture). */
export interface ProfileCapability {
  setName(name: string): Promise<void>;
  /** Sets the about text. */
  setStatus(text: string): Promise<void>;
  setPicture(image: MediaInput): Promise<{ imageProfile: string }>;
  removePicture(): Promise<void>;
  /** Business profile of the account, when it is a business account. */
  businessProfile?(): Promise<BusinessProfile | null>;
}
