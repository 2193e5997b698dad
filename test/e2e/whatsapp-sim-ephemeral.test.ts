import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { SAMPLES } from '../support/media-server.js';
import { memberOf, phoneGot } from '../support/simulated-phone.js';
import { useSimulatedWhatsApp, type SimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

type Api = Awaited<ReturnType<SimulatedWhatsApp['linkByQr']>>['api'];

/**
 * Issue 25 defect 5 on Baileys' real socket against the simulator: once a phone turns on disappearing
 * messages in a chat (an EPHEMERAL_SETTING protocol message) or a group (w:g2 `<ephemeral>`, told in a
 * w:gp2 notification), Parley's text and media sends into it carry `contextInfo.expiration` equal to the
 * timer, as the receiving phone decrypts them; once it is turned off, they carry none.
 */
describe('sends into chats with disappearing messages carry the chat\'s timer, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  let api: Api;
  const shop = '5511987658101';
  const friend = '5511987658102';
  const carol = '5511987658103';
  const env = useSimulatedWhatsApp();
  before(async () => {
    ({ sim, t } = env);
    for (const [number, pushName] of [[shop, 'Loja'], [friend, 'Cliente'], [carol, 'Carol']] as const) sim.simulator.createAccount({ number, pushName });
    ({ api } = await env.linkByQr(shop, 'ephemeral'));
  });

  /** The expiration of each of Parley's sends as `phone` decrypts them: a text, then an image. */
  const expirations = async (to: string, phone: string): Promise<Array<number | undefined>> => {
    const text = await api.call('sendText', { body: { to, text: 'Pedido confirmado' } });
    const image = await api.call('sendBase64Image', { body: { to, base64: `data:image/jpeg;base64,${SAMPLES.jpeg.toString('base64')}`, caption: 'nota' } });
    const found: Array<number | undefined> = [];
    for (const sent of [text, image]) {
      const [, member] = memberOf((await phoneGot(sim, t, phone, sent.data.key.id)).message);
      found.push(member.contextInfo?.expiration);
    }
    return found;
  };
  const chatTimer = async (jid: string) => (await api.call('listChats')).data.find((c) => c.id === jid)?.ephemeralExpiration;

  it('1:1: the friend\'s phone turns on 7 days, then off: the sends follow', { timeout: 90_000 }, async () => {
    await sim.simulator.setDisappearing(friend, shop, 604_800);
    await t.waitFor(async () => (await chatTimer(`${friend}@s.whatsapp.net`)) === 604_800, 20_000, 'Parley to store the chat\'s timer');
    assert.deepEqual(await expirations(friend, friend), [604_800, 604_800]);

    await sim.simulator.setDisappearing(friend, shop, 0);
    await t.waitFor(async () => (await chatTimer(`${friend}@s.whatsapp.net`)) === 0, 20_000, 'Parley to store that the timer is off');
    assert.deepEqual(await expirations(friend, friend), [undefined, undefined]);
  });

  it('Parley itself turns it on (POST /chat/disappearing) in a chat and a group: the phones learn it, and Parley\'s sends carry it', { timeout: 90_000 }, async () => {
    const set = async (jid: string, expiration: 0 | 86_400 | 604_800 | 7_776_000) => {
      const res = await api.call('setDisappearingMessages', { body: { jid, expiration } });
      assert.equal(res.status, 200);
      return res.data;
    };
    assert.deepEqual(await expirations(carol, carol), [undefined, undefined]);
    const chat = await set(carol, 7_776_000);
    assert.equal(chat.ephemeralExpiration, 7_776_000);
    await t.waitFor(() => sim.simulator.chatTimer(carol, shop).expiration === 7_776_000 || undefined, 20_000, 'carol\'s phone to take the setting');
    assert.deepEqual(await expirations(carol, carol), [7_776_000, 7_776_000]);

    const group = sim.simulator.createGroup(carol, 'Parley decide', [shop]);
    await t.waitFor(() => t.events.find((e) => e.type === 'group.update' && e.groups.some((g) => g.id === group.jid)), 20_000, 'the group');
    assert.deepEqual(await expirations(group.jid, carol), [undefined, undefined]);
    await set(group.jid, 604_800);
    assert.equal(sim.simulator.getGroup(group.jid).ephemeral, 604_800);
    assert.deepEqual(await expirations(group.jid, carol), [604_800, 604_800]);
  });

  it('group: a member\'s phone turns on 24 hours after Parley already knew the group, then off', { timeout: 90_000 }, async () => {
    const group = sim.simulator.createGroup(carol, 'Atacado', [shop, friend]);
    // Parley learns the group (and caches its metadata) and sends into it before any timer is set.
    await t.waitFor(() => t.events.find((e) => e.type === 'group.update' && e.groups.some((g) => g.id === group.jid)), 20_000, 'the group');
    assert.deepEqual(await expirations(group.jid, carol), [undefined, undefined]);

    sim.simulator.setGroupDisappearing(carol, group.jid, 86_400);
    await t.waitFor(async () => (await chatTimer(group.jid)) === 86_400, 20_000, 'Parley to store the group\'s timer');
    assert.deepEqual(await expirations(group.jid, carol), [86_400, 86_400]);
    assert.equal(sim.simulator.getGroup(group.jid).ephemeral, 86_400);

    sim.simulator.setGroupDisappearing(friend, group.jid, 0);
    await t.waitFor(async () => (await chatTimer(group.jid)) === 0, 20_000, 'Parley to store that the group\'s timer is off');
    assert.deepEqual(await expirations(group.jid, carol), [undefined, undefined]);
  });
});
