// The account an instance is connected as, apart from the instance record so that events and
// capabilities can name it without importing the record (and what the record imports).

/** The connected account (spec 2.1 `instance.user`). */
export interface AccountUser {
  /** Account JID, `<number>@s.whatsapp.net` on the main channel. */
  id: string;
  /** Account LID, ends with `@lid`. */
  lid?: string;
  name?: string;
  imageProfile?: string;
}

/** Business profile of the account (spec 2.1). */
export interface BusinessProfile {
  wid?: string;
  description?: string;
  website?: string[];
  category?: string;
}

/** Health of an instance (spec 3). */
export type HealthStatus = 'healthy' | 'restricted';
