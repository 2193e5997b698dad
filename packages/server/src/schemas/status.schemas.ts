import { s } from '../http/schema.js';

/** Most contacts one story is shared with in one call. */
export const MAX_STATUS_AUDIENCE = 1024;

/** `statusJidList`: who sees the story; empty or absent means the channel's default audience (docs/rest-api.md). */
export const statusJidListField = s.array(s.string({ minLength: 1, maxLength: 128 }), {
  maxItems: MAX_STATUS_AUDIENCE,
  description: 'Phone numbers or contact JIDs that see the story. Empty or absent: the channel\'s default audience, named in the answer\'s statusJidList. On WhatsApp that is the account\'s address book, as its apps\' "My contacts" (stored contacts with a saved name; people who only wrote are left out); on the sandbox every stored contact (GET /{key}/contacts).',
});

/** A posted story. */
export const statusStorySchema = s.openObject({
  id: s.string({ description: 'Message id of the story (its record is in the `status@broadcast` chat).' }),
  type: s.enum(['text', 'image', 'video', 'audio', 'mention']),
  statusJidList: s.array(s.string(), { description: 'JIDs the story was shared with.' }),
  timestamp: s.integer({ description: 'Unix seconds.' }),
}, ['id', 'type', 'statusJidList', 'timestamp']);
