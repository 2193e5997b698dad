import type { SocialLink } from '@parley/core';

/** Secrets shorter than this are hidden completely: four characters would be too much of them. */
const MIN_SHOWN_LENGTH = 12;

/** A secret as it may be shown: its first 4 characters and `…` (only `…` for short values). */
export function redactSecret(value: string): string {
  return value.length < MIN_SHOWN_LENGTH ? '…' : `${value.slice(0, 4)}…`;
}

/**
 * The link as the server may answer it: access token, app secret and verify token redacted, every
 * other member unchanged.
 */
export function redactLink(link: SocialLink): SocialLink {
  return {
    ...link,
    accessToken: redactSecret(link.accessToken),
    appSecret: redactSecret(link.appSecret),
    verifyToken: redactSecret(link.verifyToken),
  };
}
