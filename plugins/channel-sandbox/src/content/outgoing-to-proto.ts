import type { OutgoingType } from '@parley/core';
import { outgoingMessage, SEND_TYPES } from '@parley/whatsapp-proto';

/** Send types the sandbox carries: every type WhatsApp carries. */
export const SANDBOX_SEND_TYPES = new Set(Object.keys(SEND_TYPES) as OutgoingType[]);

/**
 * The `message` (spec 2.4) a sandbox phone sends for an outgoing content: the shared WhatsApp
 * mapping's, so the sandbox stores what the Baileys channel stores for the same send.
 */
export const outgoingToProto = outgoingMessage;
