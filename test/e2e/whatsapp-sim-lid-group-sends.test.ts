import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { SAMPLES } from '../support/media-server.js';
import { memberOf, phoneGot } from '../support/simulated-phone.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

const userOf = (jid: string): string => jid.split('@')[0]!;

/**
 * Parley's sends naming members of a LID-addressed group (`addressing_mode="lid"`), on the simulator. WhatsApp's apps
 * name members there by LID: mentions (`contextInfo.mentionedJid`, the text showing `@<LID user>`), a quote's author
 * (`contextInfo.participant`), a reaction's or pin's target (the key's `participant`); the simulator's phones send
 * theirs so. Parley's API and records name members by number: the members' phones get them as the apps send them,
 * and a member's mention reaches Parley by number.
 */
describe('sends naming members of a LID-addressed WhatsApp group, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const env = useSimulatedWhatsApp();
  before(() => {
    ({ sim, t } = env);
  });

  it('Parley\'s mentions by number reach the members by LID, text and caption alike; a member\'s come back by number', { timeout: 150_000 }, async () => {
    const { shop, owner, carol, dave, api, id, group } = await env.shopInLidGroup('551198765960', 'lid-mentions-out');

    const text = (await api.call('sendText', {
      body: { to: group.jid, text: `Oi @${dave.number} e @${carol.number}, e @${owner.number}9 não`, mentions: [dave.number, carol.number] },
    })).data;
    for (const member of [dave, owner]) {
      const got = await phoneGot(sim, t, member.number, text.key.id, `${member.pushName}'s phone to decrypt the text`);
      const [type, body] = memberOf(got.message);
      assert.deepEqual([type, body.contextInfo?.mentionedJid, body.text], [
        'extendedTextMessage', [dave.lid, carol.lid], `Oi @${userOf(dave.lid)} e @${userOf(carol.lid)}, e @${owner.number}9 não`,
      ]);
    }

    const photo = (await api.call('sendBase64Image', {
      body: { to: group.jid, base64: `data:image/jpeg;base64,${SAMPLES.jpeg.toString('base64')}`, caption: `@${carol.number} olha`, mentions: [carol.number] },
    })).data;
    const [type, image] = memberOf((await phoneGot(sim, t, carol.number, photo.key.id, 'Carol\'s phone to decrypt the photo')).message);
    assert.deepEqual([type, image.contextInfo?.mentionedJid, image.caption], ['imageMessage', [carol.lid], `@${userOf(carol.lid)} olha`]);

    // `everyone`: every member, each by LID.
    const all = (await api.call('sendText', { body: { to: group.jid, text: 'Atenção todos', mentions: ['everyone'] } })).data;
    const [, everyone] = memberOf((await phoneGot(sim, t, carol.number, all.key.id, 'Carol\'s phone to decrypt the mention of everyone')).message);
    assert.deepEqual([...everyone.contextInfo.mentionedJid].sort(), [shop.lid, owner.lid, carol.lid, dave.lid].sort());

    // A member's phone mentions as the apps do (by LID, `@<LID user>` in the text): Parley's event names the member by
    // number, in `mentions` and in the text, as its own sends are written; the record keeps WhatsApp's text.
    const said = await sim.simulator.sendMessage(carol.number, { group: group.jid }, { kind: 'mention', text: `@${shop.number} tem? @${dave.number}1`, mentions: [shop.number] });
    const inbound = await t.waitFor(() => t.eventsOfType('message', id).find((e) => e.message.id === said.id), 20_000, 'Carol\'s mention');
    assert.deepEqual([inbound.message.mentions, inbound.message.content], [[shop.jid], { type: 'text', body: `@${shop.number} tem? @${dave.number}1` }]);
    assert.equal(memberOf(inbound.message.record.message as Record<string, unknown>)[1].text, `@${userOf(shop.lid)} tem? @${dave.number}1`);
  });
  it('Parley\'s quotes, reactions and pins name the member by LID, its own messages by its own LID', { timeout: 150_000 }, async () => {
    const { shop, owner, carol, api, id, group } = await env.shopInLidGroup('551198765961', 'lid-answers-out');
    const said = await sim.simulator.sendGroupText(carol.number, group.jid, 'Chegou o pedido?');
    await t.waitFor(() => t.eventsOfType('message', id).find((e) => e.message.id === said.id), 20_000, 'Carol\'s message');
    const onOwnerPhone = async (sent: { data: { key: { id: string } } }) => memberOf((await phoneGot(sim, t, owner.number, sent.data.key.id)).message);

    const [, reply] = await onOwnerPhone(await api.call('replyText', { params: { messageId: said.id }, body: { to: group.jid, text: 'Chegou sim' } }));
    assert.deepEqual([reply.contextInfo?.stanzaId, reply.contextInfo?.participant], [said.id, carol.lid]);
    const ours = await api.call('sendText', { body: { to: group.jid, text: 'Mais alguém?' } });
    const [, own] = await onOwnerPhone(await api.call('replyText', { params: { messageId: ours.data.key.id }, body: { to: group.jid, text: 'Ninguém?' } }));
    assert.deepEqual([own.contextInfo?.stanzaId, own.contextInfo?.participant], [ours.data.key.id, shop.lid]);

    const [, reaction] = await onOwnerPhone(await api.call('sendReaction', { body: { text: '👍', msgId: said.id } }));
    assert.deepEqual(reaction.key, { remoteJid: group.jid, fromMe: false, id: said.id, participant: carol.lid });
    const [pinType, pin] = await onOwnerPhone(await api.call('pinMessage', { body: { id: said.id, duration: 86_400 } }));
    assert.deepEqual([pinType, pin.key?.participant, pin.key?.id], ['pinInChatMessage', carol.lid, said.id]);
  });
});
