import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { InboundMessage, MessageRecord } from '@parley/core';
import { proto, type BaileysEventMap } from '@whiskeysockets/baileys';
import { encryptEventResponse, encryptPollVote, ReceivePath, type FakeSocket } from '../src/testing/index.js';
import { connectOpen, createHarness, INSTANCE_ID, OWN_JID, OWN_NUMBER, PEER, PEER_JID, PEER_LID, type Harness } from './harness.js';

const T = 1_735_700_000;
const POLL = { type: 'poll' as const, name: 'Toppings', values: ['Cheese', 'Olives', 'Basil'], selectableCount: 2 };

const hash = (name: string) => createHash('sha256').update(name).digest();
const hex = (name: string) => hash(name).toString('hex');

/** The secret a stored record keeps, as bytes (records hold bytes as base64). */
function storedSecret(record: MessageRecord | null): Buffer {
  const info = record?.message.messageContextInfo as { messageSecret?: string } | undefined;
  assert.ok(info?.messageSecret, 'the stored record keeps messageContextInfo.messageSecret');
  return Buffer.from(info.messageSecret, 'base64');
}

/** Stores a record as the server does (the send path and the store projector upsert it). */
async function store(h: Harness, record: MessageRecord): Promise<void> {
  await h.storage.messages.upsert(INSTANCE_ID, { ...record, provider: 'whatsapp' });
}

function messagesOf(h: Harness): InboundMessage[] {
  return h.eventsOf('message').map((e) => e.message);
}

async function open(): Promise<{ h: Harness; socket: FakeSocket; path: ReceivePath }> {
  const h = await createHarness();
  const socket = await connectOpen(h);
  return { h, socket, path: await ReceivePath.create(socket, [PEER_JID]) };
}

describe('poll votes and event responses on the receive path (real Signal sessions, secrets from storage)', () => {
  it('a poll the instance sends keeps its secret in storage; getMessage answers it; a vote decrypts to the chosen options', async () => {
    const { h, socket, path } = await open();
    const poll = await h.adapter.capabilities.messaging!.send({ to: PEER, content: POLL });
    await store(h, poll);
    const secret = storedSecret(await h.storage.messages.get(INSTANCE_ID, poll.key.id));
    assert.equal(secret.length, 32);
    // Baileys' getMessage (retries, RSVP decryption) gets the poll back with the same secret.
    const answered = await socket.config.getMessage!({ remoteJid: PEER_JID, fromMe: true, id: poll.key.id });
    assert.deepStrictEqual(Buffer.from(answered!.messageContextInfo!.messageSecret!), secret);
    assert.deepStrictEqual(answered!.pollCreationMessage?.options?.map((o) => o.optionName), POLL.values);

    // The peer votes; in its copy of the chat the poll is the account's message (fromMe false on its side).
    const scope = { secret, messageId: poll.key.id, creatorJid: OWN_JID, authorJid: PEER_JID };
    const vote = (id: string, t: number, options: string[]) => path.receive(PEER_JID, {
      pollUpdateMessage: {
        pollCreationMessageKey: { remoteJid: OWN_JID, fromMe: false, id: poll.key.id },
        vote: encryptPollVote(options.map(hash), scope),
        senderTimestampMs: t * 1000,
      },
    }, { id, timestamp: t, pushName: 'Maria Silva' });
    await vote('3EB0B0000000000000000001', T + 5, ['Olives', 'Basil']);
    await vote('3EB0B0000000000000000002', T + 6, []);
    await h.settle();

    const [first, withdrawn] = messagesOf(h);
    assert.deepStrictEqual({ ...first!, record: undefined }, {
      id: '3EB0B0000000000000000001', chatJid: PEER_JID, from: PEER, fromMe: false, timestamp: T + 5, chatType: 'individual',
      pushName: 'Maria Silva',
      content: { type: 'poll_vote', pollId: poll.key.id, options: [{ hash: hex('Olives'), name: 'Olives' }, { hash: hex('Basil'), name: 'Basil' }] },
      context: { id: poll.key.id, from: OWN_NUMBER },
      record: undefined,
    });
    // The vote's own record keeps the encrypted vote, pointing at the poll from the account's side
    // (Baileys' cleanMessage turns the key around and fills `participant`, empty in a direct chat).
    const update = first!.record.message.pollUpdateMessage as { pollCreationMessageKey: unknown; vote: { encPayload: string } };
    assert.deepStrictEqual(update.pollCreationMessageKey, { remoteJid: PEER_JID, fromMe: true, id: poll.key.id, participant: '' });
    assert.ok(update.vote.encPayload.length > 0);
    assert.deepStrictEqual(withdrawn!.content, { type: 'poll_vote', pollId: poll.key.id, options: [] });
    await h.adapter.stop();
  });

  it("a poll received from a peer is stored with the peer's secret, and the peer's vote on it decrypts", async () => {
    const { h, path } = await open();
    const peerSecret = Buffer.alloc(32, 7);
    await path.receive(PEER_JID, {
      pollCreationMessage: { name: 'Lunch?', options: [{ optionName: 'Yes' }, { optionName: 'No' }], selectableOptionsCount: 1 },
      messageContextInfo: { messageSecret: peerSecret },
    }, { id: '3EB0C0000000000000000001', timestamp: T + 1, pushName: 'Maria Silva' });
    await h.settle();
    const [pollMessage] = messagesOf(h);
    assert.deepStrictEqual(pollMessage!.content, { type: 'unsupported', typeName: 'pollCreationMessage' });
    await store(h, pollMessage!.record);
    assert.deepStrictEqual(storedSecret(await h.storage.messages.get(INSTANCE_ID, '3EB0C0000000000000000001')), peerSecret);

    // The creator votes on its own poll: on its side the poll key is its own message.
    await path.receive(PEER_JID, {
      pollUpdateMessage: {
        pollCreationMessageKey: { remoteJid: OWN_JID, fromMe: true, id: '3EB0C0000000000000000001' },
        vote: encryptPollVote([hash('No')], { secret: peerSecret, messageId: '3EB0C0000000000000000001', creatorJid: PEER_JID, authorJid: PEER_JID }),
        senderTimestampMs: (T + 2) * 1000,
      },
    }, { id: '3EB0C0000000000000000002', timestamp: T + 2 });
    await h.settle();
    const vote = messagesOf(h)[1]!;
    assert.deepStrictEqual(vote.content, { type: 'poll_vote', pollId: '3EB0C0000000000000000001', options: [{ hash: hex('No'), name: 'No' }] });
    assert.deepStrictEqual(vote.context, { id: '3EB0C0000000000000000001', from: PEER });
    await h.adapter.stop();
  });

  it('a poll in a disappearing chat: the secret beside the wrapper is kept with the unwrapped poll, and a vote decrypts', async () => {
    const { h, path } = await open();
    const secret = Buffer.alloc(32, 9);
    await path.receive(PEER_JID, {
      ephemeralMessage: { message: { pollCreationMessageV3: { name: 'Size', options: [{ optionName: 'S' }, { optionName: 'L' }], selectableOptionsCount: 1 } } },
      messageContextInfo: { messageSecret: secret },
    }, { id: '3EB0C1000000000000000001', timestamp: T + 1 });
    await h.settle();
    const [poll] = messagesOf(h);
    assert.deepStrictEqual(Object.keys(poll!.record.message), ['messageContextInfo', 'pollCreationMessageV3']); // proto field order
    await store(h, poll!.record);
    assert.deepStrictEqual(storedSecret(await h.storage.messages.get(INSTANCE_ID, '3EB0C1000000000000000001')), secret);
    await path.receive(PEER_JID, {
      pollUpdateMessage: {
        pollCreationMessageKey: { remoteJid: OWN_JID, fromMe: true, id: '3EB0C1000000000000000001' },
        vote: encryptPollVote([hash('L')], { secret, messageId: '3EB0C1000000000000000001', creatorJid: PEER_JID, authorJid: PEER_JID }),
      },
    }, { id: '3EB0C1000000000000000002', timestamp: T + 2 });
    await h.settle();
    assert.deepStrictEqual(messagesOf(h)[1]!.content, { type: 'poll_vote', pollId: '3EB0C1000000000000000001', options: [{ hash: hex('L'), name: 'L' }] });
    await h.adapter.stop();
  });

  it('a LID-addressed chat: a vote keyed to the voter\'s LID or to its phone number decrypts, the sender resolved to the number', async () => {
    const h = await createHarness();
    const socket = await connectOpen(h);
    const path = await ReceivePath.create(socket, [PEER_LID]);
    const poll = await h.adapter.capabilities.messaging!.send({ to: PEER, content: POLL });
    await store(h, poll);
    const secret = storedSecret(await h.storage.messages.get(INSTANCE_ID, poll.key.id));
    // The voter's client binds either address of the voter; the stanza names both (from = LID, sender_pn).
    for (const [id, authorJid] of [['3EB0C2000000000000000001', PEER_LID], ['3EB0C2000000000000000002', PEER_JID]] as const) {
      await path.receive(PEER_LID, {
        pollUpdateMessage: {
          pollCreationMessageKey: { remoteJid: OWN_JID, fromMe: false, id: poll.key.id },
          vote: encryptPollVote([hash('Cheese')], { secret, messageId: poll.key.id, creatorJid: OWN_JID, authorJid }),
        },
      }, { id, timestamp: T + 4, senderPn: PEER_JID });
    }
    await h.settle();
    assert.deepStrictEqual(messagesOf(h).map((m) => [m.id, m.chatJid, m.from, m.fromUserId, m.content]), [
      ['3EB0C2000000000000000001', PEER_JID, PEER, PEER_LID, { type: 'poll_vote', pollId: poll.key.id, options: [{ hash: hex('Cheese'), name: 'Cheese' }] }],
      ['3EB0C2000000000000000002', PEER_JID, PEER, PEER_LID, { type: 'poll_vote', pollId: poll.key.id, options: [{ hash: hex('Cheese'), name: 'Cheese' }] }],
    ]);
    await h.adapter.stop();
  });

  it('an RSVP to an event the instance sent decrypts (Baileys decrypts it too, through getMessage on the store)', async () => {
    const { h, socket, path } = await open();
    const event = await h.adapter.capabilities.messaging!.send({ to: PEER, content: { type: 'event', name: 'Launch party', startTime: T + 86_400 } });
    await store(h, event);
    const secret = storedSecret(await h.storage.messages.get(INSTANCE_ID, event.key.id));
    const baileysUpdates: BaileysEventMap['messages.update'] = [];
    socket.ev.on('messages.update', (updates) => baileysUpdates.push(...updates));

    await path.receive(PEER_JID, {
      encEventResponseMessage: {
        eventCreationMessageKey: { remoteJid: OWN_JID, fromMe: false, id: event.key.id },
        ...encryptEventResponse(
          { response: proto.Message.EventResponseMessage.EventResponseType.GOING, timestampMs: (T + 9) * 1000, extraGuestCount: 2 },
          { secret, messageId: event.key.id, creatorJid: OWN_JID, authorJid: PEER_JID },
        ),
      },
    }, { id: '3EB0D0000000000000000001', timestamp: T + 9, pushName: 'Maria Silva' });
    await h.settle();

    const [rsvp] = messagesOf(h);
    assert.deepStrictEqual(rsvp!.content, { type: 'event_response', eventId: event.key.id, response: 'going', extraGuests: 2 });
    assert.deepStrictEqual(rsvp!.context, { id: event.key.id, from: OWN_NUMBER });
    // Baileys' processMessage found the event through the adapter's getMessage and decrypted the same answer.
    assert.equal(baileysUpdates.length, 1);
    const [{ key, update }] = baileysUpdates as [{ key: { id?: string | null }; update: { eventResponses?: { response?: proto.Message.IEventResponseMessage }[] } }];
    assert.equal(key.id, event.key.id);
    assert.equal(update.eventResponses?.[0]?.response?.response, proto.Message.EventResponseMessage.EventResponseType.GOING);
    // That update carries no status and no record: it adds no second event.
    assert.deepStrictEqual(h.events.filter((e) => e.type === 'message').length, 1);
    await h.adapter.stop();
  });

  it('a vote that cannot be decrypted (poll not stored, or a forged payload) stays an unsupported message', async () => {
    const { h, path } = await open();
    const poll = await h.adapter.capabilities.messaging!.send({ to: PEER, content: POLL });
    const wrongScope = { secret: Buffer.alloc(32, 1), messageId: poll.key.id, creatorJid: OWN_JID, authorJid: PEER_JID };
    const vote = (id: string) => path.receive(PEER_JID, {
      pollUpdateMessage: { pollCreationMessageKey: { remoteJid: OWN_JID, fromMe: false, id: poll.key.id }, vote: encryptPollVote([hash('Cheese')], wrongScope) },
    }, { id, timestamp: T + 3 });
    await vote('3EB0E0000000000000000001');
    await store(h, poll);
    await vote('3EB0E0000000000000000002');
    await h.settle();
    assert.deepStrictEqual(messagesOf(h).map((m) => [m.id, m.content, m.context]), [
      ['3EB0E0000000000000000001', { type: 'unsupported', typeName: 'pollUpdateMessage' }, undefined],
      ['3EB0E0000000000000000002', { type: 'unsupported', typeName: 'pollUpdateMessage' }, undefined],
    ]);
    await h.adapter.stop();
  });
});
