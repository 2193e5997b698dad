import { s, type JsonSchema } from '../http/schema.js';

/** Most people one text or caption may mention (a WhatsApp group holds at most 1024). */
export const MAX_MENTIONS = 1024;

/** The types a reply can have (spec 4.3): their sends take `quoted` as well. */
export const REPLY_TYPES = ['text', 'image', 'video', 'document', 'audio', 'button_reply', 'button_action', 'pix', 'title', 'contact', 'location'] as const;

/** Send types whose text or caption may mention people. */
const MENTIONING = ['text', 'image', 'video', 'base64/image'] as const;

const mentions = s.array(s.string({ minLength: 1, maxLength: 128 }), {
  minItems: 1, maxItems: MAX_MENTIONS, uniqueItems: true,
  description: 'People the text or caption mentions: phone numbers with country code or user JIDs, or `everyone` (groups only: '
    + 'every member). Put `@<number>` in the text where each should show, as WhatsApp does. WhatsApp channels only (422 elsewhere).',
});

const linkPreview = s.boolean({
  description: 'Show a preview of the first http(s) link of the text: the server fetches the page (private addresses refused unless '
    + '`allowPrivateUrls`; at most 1 MiB and 10 s), reads its Open Graph / HTML metadata, and fetches its image as the thumbnail '
    + '(at most 256 KiB). A page that cannot be fetched or has no title sends the text without preview. Instagram and Messenger '
    + 'preview links themselves: there it is accepted and nothing is fetched.',
});

const quoted = s.object({
  messageId: s.text(512, { description: 'Id of the message replied to; it must exist in this instance (404 message_not_found).' }),
}, ['messageId'], { description: 'Sends this message as a reply (the same as POST /{key}/message/{messageId}/{type}).' });

function withMembers(schema: JsonSchema, members: Record<string, JsonSchema>): JsonSchema {
  return { ...schema, properties: { ...(schema.properties as Record<string, JsonSchema>), ...members } };
}

/**
 * The send bodies with the members of richer sends: `mentions` on texts and captions,
 * `linkPreview` on texts, `quoted` on every type a reply can have. Reply routes take the same
 * bodies without `quoted` (their path names the quoted message).
 */
export function richSendBodies<B extends Record<string, JsonSchema>>(plain: B): { send: B; reply: B } {
  const reply: Record<string, JsonSchema> = { ...plain };
  for (const type of MENTIONING) reply[type] = withMembers(reply[type]!, { mentions });
  reply.text = withMembers(reply.text!, { linkPreview });
  const send: Record<string, JsonSchema> = { ...reply };
  for (const type of REPLY_TYPES) send[type] = withMembers(send[type]!, { quoted });
  return { send: send as B, reply: reply as B };
}
