import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { SimError } from '@parley/whatsapp-sim';
import { metaContacts, metaItem, usePhoneMessages } from '../support/phone-messages.js';

const hash = (option: string) => createHash('sha256').update(option).digest('hex');

/**
 * A simulated phone answers a poll and an event the instance sent: its vote (`pollUpdateMessage`) and its
 * RSVP (`encEventResponseMessage`) are sealed with the question's `messageSecret` as WhatsApp's phones seal
 * them, reach Baileys' real socket, and Parley decrypts them into docs/webhooks.md's `message-poll-vote`
 * and `message-event-response`: native `poll_vote` / `event_response` content, and the meta format's
 * `interactive` `poll_reply` / `event_reply` with `context` naming the question.
 */
describe('WhatsApp poll votes and event responses from a simulated phone, in both webhook formats', () => {
  const s = usePhoneMessages('5511987659501', '5511987659502');

  /** The instance sends `send`'s message to `to`; answers its id once the friend's phone has it. */
  async function asked(send: Promise<{ data: { key: { id: string } } }>): Promise<string> {
    const id = (await send).data.key.id;
    await s.t.waitFor(() => s.sim.simulator.received(s.friend).find((m) => m.id === id), 20_000, 'the phone to get the question');
    return id;
  }

  it('message-poll-vote: a vote, a changed vote and a withdrawn one, each decrypted with the poll\'s secret', { timeout: 90_000 }, async () => {
    const poll = await asked(s.api.call('sendPoll', { body: { to: s.friend, name: 'Qual cor?', values: ['Azul', 'Verde', 'Rosa'], selectableCount: 2 } }));
    const votes = [['Azul', 'Rosa'], ['Verde'], []];
    for (const options of votes) {
      const vote = await s.send({ kind: 'vote', messageId: poll, options });
      const native = await s.native(vote.id, `the vote for ${options.join(', ') || 'nothing'}`);
      assert.deepEqual([native.data.message.from, native.data.message.fromMe, native.data.message.chatType], [s.friend, false, 'individual']);
      assert.deepEqual(native.data.message.content, { type: 'poll_vote', pollId: poll, options: options.map((name) => ({ hash: hash(name), name })) });
      assert.deepEqual(native.data.message.context, { id: poll, from: s.shop });
      const value = await s.meta(vote.id, 'the vote');
      assert.deepEqual(value.contacts, metaContacts(native));
      assert.deepEqual(value.messages[0], metaItem(native, 'interactive', {
        interactive: { type: 'poll_reply', poll_reply: { options: options.map((name) => ({ id: hash(name), title: name })) } },
        context: { from: s.shop, id: poll },
      }));
    }
  });

  it('message-event-response: going with guests, then maybe', { timeout: 90_000 }, async () => {
    const event = await asked(s.api.call('sendEvent', {
      body: { to: s.friend, name: 'Bazar de Natal', description: 'Descontos', startTime: '2026-12-20T18:00:00Z', locationName: 'Loja Centro', locationAddress: 'Rua Direita, 10' },
    }));
    const going = await s.send({ kind: 'rsvp', messageId: event, response: 'going', extraGuests: 2 });
    const native = await s.native(going.id, 'the RSVP');
    assert.deepEqual(native.data.message.content, { type: 'event_response', eventId: event, response: 'going', extraGuests: 2 });
    assert.deepEqual(native.data.message.context, { id: event, from: s.shop });
    const value = await s.meta(going.id, 'the RSVP');
    assert.deepEqual(value.messages[0], metaItem(native, 'interactive', {
      interactive: { type: 'event_reply', event_reply: { response: 'going', extra_guests: 2 } }, context: { from: s.shop, id: event },
    }));
    const maybe = await s.send({ kind: 'rsvp', messageId: event, response: 'maybe' });
    assert.deepEqual((await s.native(maybe.id, 'the second RSVP')).data.message.content, { type: 'event_response', eventId: event, response: 'maybe' });
    assert.deepEqual((await s.meta(maybe.id, 'the second RSVP')).messages[0].interactive, { type: 'event_reply', event_reply: { response: 'maybe' } });
  });

  it('a vote in a group on the instance\'s poll: from the member, chat_type group', { timeout: 90_000 }, async () => {
    const group = s.sim.simulator.createGroup(s.friend, 'Clientes VIP', [s.shop]);
    const poll = (await s.api.call('sendPoll', { body: { to: group.jid, name: 'Melhor dia?', values: ['Sábado', 'Domingo'], selectableCount: 1 } })).data.key.id;
    await s.t.waitFor(() => s.sim.simulator.received(s.friend).find((m) => m.id === poll), 20_000, 'the member\'s phone to get the poll');
    const vote = await s.send({ kind: 'vote', messageId: poll, options: ['Domingo'] }, { group: group.jid });
    const native = await s.native(vote.id, 'the group vote');
    assert.deepEqual([native.data.message.from, native.data.message.chatType, native.data.message.groupId], [s.friend, 'group', group.jid]);
    assert.deepEqual(native.data.message.content, { type: 'poll_vote', pollId: poll, options: [{ hash: hash('Domingo'), name: 'Domingo' }] });
    assert.deepEqual(native.data.message.context, { id: poll, from: s.shop });
  });

  it('the phone refuses answers that name no question it got, or options the poll lacks', { timeout: 30_000 }, async () => {
    const poll = await asked(s.api.call('sendPoll', { body: { to: s.friend, name: 'Entrega?', values: ['Sim', 'Não'], selectableCount: 1 } }));
    const before = s.sim.simulator.sent(s.friend).length;
    const refused = (status: number, code: string) => (e: unknown) => e instanceof SimError && e.status === status && e.code === code;
    await assert.rejects(s.send({ kind: 'vote', messageId: poll, options: ['Talvez'] }), refused(400, 'invalid_message'));
    await assert.rejects(s.send({ kind: 'vote', messageId: poll, options: ['Sim', 'Não'] }), refused(400, 'invalid_message'));
    await assert.rejects(s.send({ kind: 'vote', messageId: '3EB0FFFFFFFFFFFFFFFF', options: ['Sim'] }), refused(404, 'message_not_found'));
    await assert.rejects(s.send({ kind: 'rsvp', messageId: poll, response: 'going' }), refused(404, 'message_not_found'));
    assert.equal(s.sim.simulator.sent(s.friend).length, before, 'nothing was sent');
  });
});
