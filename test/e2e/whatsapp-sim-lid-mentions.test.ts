import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { SAMPLES } from '../support/media-server.js';
import { memberOf, phoneGot } from '../support/simulated-phone.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

const userOf = (jid: string): string => jid.split('@')[0]!;

/**
 * Mentions in a LID-addressed group (`addressing_mode="lid"`), on the simulator. WhatsApp's apps mention members
 * there by LID: `contextInfo.mentionedJid` holds LIDs and the text shows `@<LID user>` (the simulator's phones send
 * their `mention` kind so). Parley's API takes mentions by number (`@<number>` in the text): the members' phones get
 * them as the apps send them, and a member's mention reaches Parley by number.
 */
describe('mentions in a LID-addressed WhatsApp group, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const env = useSimulatedWhatsApp();
  before(() => {
    ({ sim, t } = env);
  });

  it('Parley\'s mentions by number reach the members by LID, text and caption alike; a member\'s come back by number', { timeout: 150_000 }, async () => {
    const { shop, owner, carol, dave, api, id, group } = await env.shopInLidGroup('551198765960', 'lid-mentions');

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
});
