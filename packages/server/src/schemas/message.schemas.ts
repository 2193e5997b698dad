import { s } from '../http/schema.js';

/** The message record of spec 2.4. */
export const messageRecordSchema = s.openObject({
  key: s.openObject({ remoteJid: s.string(), fromMe: s.boolean(), id: s.string(), participant: s.string() }, ['remoteJid', 'fromMe', 'id']),
  message: s.anyObject({ description: 'One typed member, named as WhatsApp names it (extendedTextMessage, imageMessage, …).' }),
  messageTimestamp: s.string({ pattern: '^\\d+$', description: 'Unix seconds as text.' }),
  status: s.enum(['PENDING', 'SERVER_ACK', 'DELIVERY_ACK', 'READ', 'PLAYED', 'ERROR']),
  provider: s.enum(['whatsapp', 'instagram', 'messenger']),
  pushName: s.string(),
}, ['key', 'message', 'messageTimestamp', 'status']);

/** The optional `provider` of spec 1.6. */
export const providerField = s.enum(['whatsapp', 'instagram', 'messenger'], { description: 'Channel to send through (default whatsapp).' });

/** The chat of spec 2.5. */
export const chatSchema = s.openObject({
  id: s.string(), name: s.string(), timestamp: s.integer(), unreadCount: s.integer(), pinned: s.boolean(), archived: s.boolean(),
  ephemeralExpiration: s.integer(), labels: s.array(s.string()),
}, ['id', 'name', 'timestamp', 'unreadCount']);
