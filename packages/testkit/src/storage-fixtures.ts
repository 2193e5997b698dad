import { randomBytes } from 'node:crypto';
import {
  defaultInstanceFlags, defaultWebhookSettings,
  type Delivery, type InstanceRecord, type MessageRecord, type MessageStatus, type NewDelivery,
} from '@parley/core';

/**
 * A fresh id with a readable prefix. Every test uses its own ids, so back ends whose tests share a
 * server (Redis, MongoDB) never see each other's records.
 */
export function uniqueId(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** A complete instance record with every optional branch filled, so a lossy store shows. */
export function filledInstanceRecord(overrides: Partial<InstanceRecord> = {}): InstanceRecord {
  return {
    id: uniqueId('ins'),
    key: uniqueId('key'),
    name: 'support line',
    driver: 'sandbox',
    createdAt: 1_700_000_000_000,
    flags: { ...defaultInstanceFlags(), saveMedia: true, permission: 2 },
    webhook: { ...defaultWebhookSettings(), allowWebhook: true, webhookMessage: 'http://127.0.0.1:9/hook' },
    webhookSecret: uniqueId('whsec'),
    user: { id: '5511999990000@s.whatsapp.net', lid: '123456789@lid', name: 'Support' },
    phoneConnected: true,
    wantsConnection: true,
    businessProfile: { wid: '5511999990000@s.whatsapp.net', description: 'We help', website: ['https://example.org'], category: 'Shop' },
    proxy: 'http://127.0.0.1:3128',
    health: 'healthy',
    driverOptions: { phoneNumber: '5511999990000', nested: { list: [1, 2, 3] } },
    links: {
      instagram: {
        channel: 'instagram', accountId: '17841400000000000', accessToken: 'token', appSecret: 'secret',
        verifyToken: 'verify', username: 'shop', linkedAt: 1_700_000_000_500,
      },
    },
    ...overrides,
  };
}

/** A text message record of `chat` with a given id, Unix-seconds timestamp and status. */
export function messageRecord(chat: string, id: string, timestamp: number, status: MessageStatus = 'PENDING'): MessageRecord {
  return {
    key: { remoteJid: chat, fromMe: false, id },
    message: { conversation: `text of ${id}`, contextInfo: { mentionedJid: [chat], forwarded: false } },
    messageTimestamp: String(timestamp),
    status,
    provider: 'whatsapp',
    pushName: 'Alice',
  };
}

/** A delivery of `instance` to `url`, created (so due) at `createdAt`. */
export function newDelivery(instance: string, url: string, createdAt: number, id = uniqueId('dlv')): NewDelivery {
  return {
    id, instance, url, format: 'native', eventId: 'message-text', eventType: 'messages.upsert',
    body: JSON.stringify({ event: 'messages.upsert', instance, id }), createdAt,
  };
}

/** What a fresh delivery reads as from the queue, with optional bookkeeping changes. */
export function queuedDelivery(delivery: NewDelivery, changes: Partial<Delivery> = {}): Delivery {
  return { ...delivery, attempts: 0, nextAttemptAt: delivery.createdAt, ...changes };
}

/** Names every JavaScript object inherits: ids that must read as unknown ones, never as something found. */
export const INHERITED_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'] as const;
