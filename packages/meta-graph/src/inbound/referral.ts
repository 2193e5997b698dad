import type { Referral, StateRepository } from '@parley/core';
import type { MetaReferral } from './webhook-payload.js';

/**
 * Meta's `referral` as the spec's (6.3 `referral`): the ad's id (else its post's) and title, its
 * picture or video thumbnail as the thumbnail, `source` lower-cased (`ADS` becomes `ad`, as on WhatsApp), the link's `ref` beside.
 * Answers undefined for a missing or empty referral.
 */
export function referralOf(meta: MetaReferral | undefined): Referral | undefined {
  if (!meta || typeof meta !== 'object') return undefined;
  const ads = meta.ads_context_data && typeof meta.ads_context_data === 'object' ? meta.ads_context_data : {};
  const source = text(meta.source)?.toLowerCase();
  const mediaType = text(ads.video_url) ? 'video' : text(ads.photo_url) ? 'image' : undefined;
  const referral: Referral = {};
  const set = (key: keyof Referral, value: string | undefined): void => {
    if (value !== undefined) referral[key] = value;
  };
  set('sourceType', source === 'ads' ? 'ad' : source);
  set('sourceId', text(meta.ad_id) ?? text(ads.post_id));
  set('sourceUrl', text(meta.referer_uri));
  set('headline', text(ads.ad_title));
  set('mediaType', mediaType);
  // Meta's `video_url` is the video's thumbnail (Messenger Platform, "messaging_referrals").
  set('thumbnailUrl', text(ads.photo_url) ?? text(ads.video_url));
  set('ref', text(meta.ref));
  return Object.keys(referral).length > 0 ? referral : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

interface StoredReferral {
  referral: Referral;
  /** Unix milliseconds when the referral arrived. */
  at: number;
}

/**
 * Referrals that came without a message (`messaging_referrals`: a user opened an existing
 * conversation through an ad or a link), kept in the state repository until the user's next message,
 * which carries it. Kept for {@link PENDING_REFERRAL_MS}: later, a message is no longer attributed.
 */
export class PendingReferrals {
  constructor(
    private readonly state: StateRepository,
    private readonly namespace: string,
    private readonly now: () => number,
  ) {}

  /**
   * Remembers `referral` for `userId`'s next message (a newer referral replaces an older one). The
   * wait is counted from now, not from Meta's timestamp, so a skewed clock cannot void it.
   */
  async put(userId: string, referral: Referral): Promise<void> {
    await this.state.put(this.namespace, userId, { referral, at: this.now() } satisfies StoredReferral);
  }

  /** The referral waiting for `userId`'s message; undefined when none or too old. */
  async pending(userId: string): Promise<Referral | undefined> {
    const stored = await this.state.get<StoredReferral>(this.namespace, userId);
    return stored && this.now() - stored.at <= PENDING_REFERRAL_MS ? stored.referral : undefined;
  }

  /** Forgets `userId`'s referral once a message carried it (after its event was emitted: a crash before repeats it, never loses it). */
  async clear(userId: string): Promise<void> {
    await this.state.delete(this.namespace, userId);
  }
}

/**
 * How long a referral without a message waits for the user's message: Meta's standard messaging
 * window, within which a reply to the ad's user is allowed at all.
 */
export const PENDING_REFERRAL_MS = 24 * 3600_000;
