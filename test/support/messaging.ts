import assert from 'node:assert/strict';
import type { ChannelEventOf, InboundMessage } from '@parley/core';
import type { InstanceOperationId, Operations } from '@parley/client';
import { MediaServer } from './media-server.js';
import { secretMarked } from './message-secret.js';
import { startTestServer, type TestServer, type TestServerOptions } from './test-server.js';

/** A connected sandbox instance as the tests use it. */
export interface Phone {
  id: string;
  key: string;
  number: string;
  jid: string;
}

/** Two connected sandbox phones (alice sends, bob receives), a media server, and helpers. */
export class MessagingPair {
  private constructor(
    readonly t: TestServer,
    readonly media: MediaServer,
    readonly alice: Phone,
    readonly bob: Phone,
  ) {}

  static async start(options: TestServerOptions = {}, numbers = ['5511900000101', '5511900000102']): Promise<MessagingPair> {
    const t = await startTestServer(options);
    const media = await MediaServer.start();
    const phone = async (name: string, number: string): Promise<Phone> => {
      const created = await t.connectedSandbox({ name, number });
      return { id: created.id, key: created.key, number, jid: `${number}@s.whatsapp.net` };
    };
    return new MessagingPair(t, media, await phone('alice', numbers[0]!), await phone('bob', numbers[1]!));
  }

  /**
   * The send operation `id` (or a reply, given its `messageId` in `params`) through the typed
   * `@parley/client` as `from` (alice by default); asserts a 200 send result (`ParleyApiError`
   * otherwise) and answers the record.
   */
  async sendVia<Id extends InstanceOperationId>(id: Id, body: Operations[Id]['body'], from: Phone = this.alice, params: Record<string, string> = {}): Promise<any> {
    const api = this.t.client(from.key);
    // One signature for every operation: the generic call cannot be resolved per `Id` here, `body` is typed by the caller.
    const call = api.call.bind(api) as unknown as (id: InstanceOperationId, args: { body: unknown; params: Record<string, string> }) => Promise<{ status: number; data: { status: string } }>;
    const res = await call(id, { body, params });
    assert.equal(res.status, 200, `${id}: ${JSON.stringify(res)}`);
    assert.equal(res.data.status, 'PENDING');
    return res.data;
  }

  /** The normalized message `to` received (its `message` event) and its stored record (GET details). */
  async received(id: string, to: Phone = this.bob): Promise<{ message: InboundMessage; record: any }> {
    const event = await this.t.waitFor(
      () => this.t.events.find((e): e is ChannelEventOf<'message'> => e.type === 'message' && e.instance === to.id && e.message.id === id),
      5000, `message ${id} to reach ${to.number}`,
    );
    await this.t.settle();
    const res = await this.t.client(to.key).call('getMessage', { params: { messageId: id } });
    assert.equal(res.status, 200, JSON.stringify(res));
    return { message: event!.message, record: res.data };
  }

  /**
   * Asserts the exact record a send answered: sent by `from` to `to` with this typed `message` (its
   * random `messageSecret` as `MESSAGE_SECRET`: see `sealed` in message-secret.ts).
   */
  expectSent(record: any, message: Record<string, unknown>, to: Phone = this.bob): void {
    assert.match(record.key.id, /^3EB0[0-9A-F]{18}$/);
    assert.match(record.messageTimestamp, /^\d+$/);
    assert.deepEqual({ ...record, message: secretMarked(record.message) }, {
      key: { remoteJid: to.jid, fromMe: true, id: record.key.id }, message, messageTimestamp: record.messageTimestamp, status: 'PENDING',
      provider: 'whatsapp',
    });
  }

  /** Asserts what the receiver stored: the same typed message, from the sender, with the same time. */
  expectStored(stored: any, sent: any, from: Phone = this.alice, fromName = 'alice'): void {
    assert.deepEqual(stored, {
      key: { remoteJid: from.jid, fromMe: false, id: sent.key.id }, message: sent.message, messageTimestamp: sent.messageTimestamp,
      status: 'DELIVERY_ACK', pushName: fromName, provider: 'whatsapp',
    });
  }

  /** Message events of an instance so far. */
  messagesOf(phone: Phone): InboundMessage[] {
    return this.t.events.filter((e): e is ChannelEventOf<'message'> => e.type === 'message' && e.instance === phone.id).map((e) => e.message);
  }

  async stop(): Promise<void> {
    await this.media.stop();
    await this.t.stop();
  }
}
