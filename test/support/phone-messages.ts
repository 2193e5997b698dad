import assert from 'node:assert/strict';
import { before } from 'node:test';
import type { InstanceClient } from '@parley/client';
import type { PhoneMessageInput, RunningSimulator, SentMessage } from '@parley/whatsapp-sim';
import { at, urlsFor, type Receivers, type UrlKind } from './webhook-receivers.js';
import { useWebhookReceivers, type NativeBody } from './simulated-webhooks.js';
import { useSimulatedWhatsApp } from './whatsapp-sim.js';
import type { TestServer } from './test-server.js';

/** A meta-format body (docs/webhooks.md "meta"). */
export type MetaBody = { object: string; entry: Array<{ changes: Array<{ field: string; value: any }> }> };

/** A suite where simulated phones write to an account linked to Parley, whose webhooks come in both formats. */
export interface PhoneMessageSuite {
  readonly sim: RunningSimulator;
  readonly t: TestServer;
  readonly api: InstanceClient;
  /** The account linked to Parley, and a phone that writes to it. */
  readonly shop: string;
  readonly friend: string;
  /** The phone of `from` (default the friend) sends to the shop 1:1 (`to`) or into a group (`group`). */
  send(message: PhoneMessageInput, target?: { to?: string; group?: string }, from?: string): Promise<SentMessage>;
  /** The native `message` event of the message `id` (at the `webhookMessage` URL unless `url` says otherwise). */
  native(id: string, what: string, url?: UrlKind): Promise<NativeBody>;
  /** The meta-format `messages` value that carries the message `id`. */
  meta(id: string, what: string, url?: UrlKind): Promise<any>;
  /** Every body delivered so far (native and meta) at the `webhookMessage` URL, or `url`. */
  bodies(url?: UrlKind): Array<NativeBody | MetaBody>;
}

/**
 * Starts a simulator and Parley, creates the shop and friend accounts (push names `Loja`, `Cliente`) and
 * links a WhatsApp instance to the shop with every webhook URL at real receivers in the `both` format: each
 * event arrives native, then as spec 6.2's envelope (the same event, rendered by each format).
 */
export function usePhoneMessages(shop: string, friend: string): PhoneMessageSuite {
  const env = useSimulatedWhatsApp();
  const hooks = useWebhookReceivers();
  const path = 'shop';
  let api: InstanceClient | undefined;
  before(async () => {
    env.sim.simulator.createAccount({ number: shop, pushName: 'Loja' });
    env.sim.simulator.createAccount({ number: friend, pushName: 'Cliente' });
    ({ api } = await env.linkByQr(shop, 'phone-messages', (instance) => bothFormats(instance, hooks.receivers(), path)));
  });
  const bodies = (url: UrlKind = 'webhookMessage') => at(hooks.receivers()[url], path).map((r) => r.json as NativeBody | MetaBody);
  const waitBody = <T>(url: UrlKind | undefined, find: (all: Array<NativeBody | MetaBody>) => T | undefined, what: string) => env.t.waitFor(() => find(bodies(url)), 20_000, what);
  return {
    get sim() {
      return env.sim;
    },
    get t() {
      return env.t;
    },
    get api() {
      return api!;
    },
    shop,
    friend,
    send: (message, target = { to: shop }, from = friend) => env.sim.simulator.sendMessage(from, target, message),
    native: (id, what, url) => waitBody(url, (all) => all.find((b): b is NativeBody => 'type' in b && b.type === 'message' && b.data.message.id === id), `${what} (native)`),
    meta: (id, what, url) => waitBody(url, (all) => metaValues(all).find((v) => v.messages?.[0]?.id === id), `${what} (meta)`),
    bodies,
  };
}

/** The `value` of every meta body's changes. */
export function metaValues(bodies: Array<NativeBody | MetaBody>): any[] {
  return bodies.filter((b): b is MetaBody => 'object' in b).flatMap((b) => b.entry.flatMap((e) => e.changes.map((c) => c.value)));
}

async function bothFormats(api: InstanceClient, receivers: Receivers, path: string): Promise<void> {
  const put = await api.call('updateWebhookSettings', { body: { allowWebhook: true, allowNumber: 'all', webhookFormat: 'both', ...urlsFor(receivers, path) } });
  assert.equal(put.status, 200);
}

/**
 * The `value.messages[]` item spec 6.3 gives an incoming main-channel message: `from`, `id`, `timestamp`
 * (text), `type`, `chat_type` (and `group_id`), `from_me`, `from_user_id` when known, then `members` (the
 * typed member, `context`, `referral`). Built from the native event of the same message.
 */
export function metaItem(native: NativeBody, type: string, members: Record<string, unknown>): Record<string, unknown> {
  const m = native.data.message;
  return {
    from: m.from, id: m.id, timestamp: String(m.timestamp), type, chat_type: m.chatType,
    ...(m.groupId === undefined ? {} : { group_id: m.groupId }), from_me: m.fromMe,
    ...(m.fromUserId === undefined ? {} : { from_user_id: m.fromUserId }), ...members,
  };
}

/** `value.contacts` of an incoming main-channel message: the sender's push name and number (and platform id). */
export function metaContacts(native: NativeBody): unknown[] {
  const m = native.data.message;
  return [{ profile: { name: m.pushName ?? '' }, wa_id: m.from, ...(m.fromUserId === undefined ? {} : { user_id: m.fromUserId }) }];
}
