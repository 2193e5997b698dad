import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

/**
 * One MCP tool: a REST operation (by `operationId`) the tool calls, with arguments its route does not
 * take from the agent (`fixed`, a query member the tool's purpose decides) and the hints MCP clients
 * show or act on. The input schema is derived from the route's schemas (see tool-schema.ts), so the
 * tool and the REST operation cannot disagree on what is valid.
 */
export interface ToolSpec {
  name: string;
  operationId: string;
  title: string;
  /** What the agent should know beyond the route's summary and description. */
  note?: string;
  fixed?: Record<string, string>;
  annotations: ToolAnnotations;
}

/** Reads only this instance's state: safe to call in a loop. */
const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
/** Sends something to people outside the server: not undoable, and it reaches the open world. */
const SEND: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
/** Asks the channel's network (a lookup): reads, but beyond this server. */
const LOOKUP: ToolAnnotations = { readOnlyHint: true, openWorldHint: true };
/** Changes state on the channel's network that others see and that may not be undone alike. */
const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };

const QUEUED = 'The send goes through the instance\'s outbound queue and pacing policy like every REST send; pass `idempotencyKey` to make a retry safe.';

/** Every tool the MCP server offers, in the order `tools/list` answers them. */
export const TOOLS: readonly ToolSpec[] = [
  { name: 'send_text', operationId: 'sendText', title: 'Send a text message', note: QUEUED, annotations: SEND },
  { name: 'send_image', operationId: 'sendImage', title: 'Send an image by URL', note: QUEUED, annotations: SEND },
  { name: 'send_video', operationId: 'sendVideo', title: 'Send a video by URL', note: QUEUED, annotations: SEND },
  { name: 'send_audio', operationId: 'sendAudio', title: 'Send an audio by URL', note: QUEUED, annotations: SEND },
  { name: 'send_document', operationId: 'sendDocument', title: 'Send a document by URL', note: QUEUED, annotations: SEND },
  { name: 'send_location', operationId: 'sendLocation', title: 'Send a location', note: QUEUED, annotations: SEND },
  { name: 'send_reaction', operationId: 'sendReaction', title: 'React to a message', note: QUEUED, annotations: SEND },
  { name: 'send_poll', operationId: 'sendPoll', title: 'Send a poll', note: QUEUED, annotations: SEND },
  { name: 'reply_text', operationId: 'replyText', title: 'Reply to a message with text', note: QUEUED, annotations: SEND },
  { name: 'reply_image', operationId: 'replyImage', title: 'Reply to a message with an image by URL', note: QUEUED, annotations: SEND },
  { name: 'reply_video', operationId: 'replyVideo', title: 'Reply to a message with a video by URL', note: QUEUED, annotations: SEND },
  { name: 'reply_audio', operationId: 'replyAudio', title: 'Reply to a message with an audio by URL', note: QUEUED, annotations: SEND },
  { name: 'reply_document', operationId: 'replyDocument', title: 'Reply to a message with a document by URL', note: QUEUED, annotations: SEND },
  { name: 'reply_location', operationId: 'replyLocation', title: 'Reply to a message with a location', note: QUEUED, annotations: SEND },
  { name: 'send_presence', operationId: 'sendPresence', title: 'Show typing, recording or online in a chat', annotations: { ...SEND, idempotentHint: true } },
  { name: 'list_chats', operationId: 'listChats', title: 'List chats', annotations: READ },
  { name: 'list_chat_messages', operationId: 'listChatMessages', title: 'Read a chat\'s messages (paged, newest first)', annotations: READ },
  {
    name: 'mark_chat_read', operationId: 'updateChat', title: 'Mark a chat read or unread', fixed: { action: 'markRead' },
    note: '`value` true marks the chat read (read receipts go to the senders), false marks it unread.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  },
  { name: 'check_number', operationId: 'isRegistered', title: 'Whether a number has an account', annotations: LOOKUP },
  { name: 'get_contact', operationId: 'getContact', title: 'Look up a stored contact', annotations: READ },
  { name: 'block_contact', operationId: 'blockContact', title: 'Block or unblock a contact', annotations: DESTRUCTIVE },
  { name: 'list_groups', operationId: 'listGroups', title: 'List the groups the account is in', annotations: LOOKUP },
  { name: 'get_group', operationId: 'getGroup', title: 'Get a group', annotations: LOOKUP },
  { name: 'create_group', operationId: 'createGroup', title: 'Create a group', annotations: { ...SEND, destructiveHint: false } },
  { name: 'add_group_participants', operationId: 'addGroupParticipants', title: 'Add people to a group', annotations: { ...DESTRUCTIVE, destructiveHint: false } },
  { name: 'remove_group_participants', operationId: 'removeGroupParticipants', title: 'Remove people from a group', annotations: DESTRUCTIVE },
  { name: 'queue_status', operationId: 'listQueue', title: 'Sends waiting in the outbound queue', annotations: READ },
  { name: 'instance_status', operationId: 'getInstance', title: 'The instance\'s connection and account', annotations: READ },
  {
    name: 'connect_instance', operationId: 'connectInstance', title: 'Connect the instance (answers the QR code to scan)',
    note: 'While the account is not paired the answer carries the QR code, also as a PNG image.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  },
];
