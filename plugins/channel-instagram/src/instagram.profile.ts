import type { MetaChannelProfile } from '@parley/meta-graph';

/**
 * How Instagram differs from Messenger on the Graph API: `instagram` webhooks, the token checked by
 * reading the Instagram account node (a Page token's `/me` is the Page), usernames in profiles, the
 * `platform=instagram` upload field, heart-only reactions, URL-only button templates, read receipts that
 * name the message (no delivery receipts) and no file attachments.
 */
export const instagramProfile: MetaChannelProfile = {
  channel: 'instagram',
  label: 'Instagram',
  webhookObject: 'instagram',
  userIdName: 'Instagram-scoped user id (IGSID)',
  linkCheck: 'account',
  linkFields: 'id,username,name',
  profileFields: 'name,username,profile_pic',
  uploadPlatform: 'instagram',
  reactions: 'love',
  actionButtons: ['cta_url'],
  receipts: { readBy: 'mid', statuses: ['read'] },
  inboundMedia: ['image', 'audio', 'video'],
};
