import type { MetaChannelProfile } from '@parley/meta-graph';

/**
 * How Messenger differs from Instagram on the Graph API: `page` webhooks, a Page token whose `/me`
 * must be the linked Page, `messaging_type` on every message, any-emoji reactions and phone buttons
 * in button templates, delivery and read receipts up to a watermark time, and file attachments.
 * Messenger profiles have no username.
 */
export const messengerProfile: MetaChannelProfile = {
  channel: 'messenger',
  label: 'Messenger',
  webhookObject: 'page',
  userIdName: 'Page-scoped user id (PSID)',
  linkCheck: 'me',
  linkFields: 'id,name,username',
  profileFields: 'name,profile_pic',
  messagingType: 'RESPONSE',
  reactions: 'emoji',
  actionButtons: ['cta_url', 'cta_call'],
  receipts: { readBy: 'watermark', statuses: ['delivered', 'read'] },
  inboundMedia: ['image', 'audio', 'video', 'document'],
};
