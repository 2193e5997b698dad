import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { SAMPLES } from '../support/media-server.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/**
 * A contact's profile picture changed and removed on its phone, through the simulator's control API. WhatsApp
 * announces both with `<notification type="picture">` (`<set>`, `<delete>`), which Baileys rc14 reports as
 * `contacts.update` with the sentinels `imgUrl: 'changed'` and `'removed'`, neither a URL. Parley reports and
 * stores the new picture's URL, and no URL once it is removed.
 */
describe('a contact\'s profile picture on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const env = useSimulatedWhatsApp();
  before(() => {
    ({ sim, t } = env);
  });

  const setPicture = async (number: string, picture: string | null) => {
    const res = await fetch(`${sim.controlUrl}/accounts/${number}/profile`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ picture }),
    });
    return { status: res.status, body: await res.json() as { error?: { code: string } } };
  };

  it('a new picture is reported and stored by its URL; a removed one as none, never as "removed"', { timeout: 120_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659501', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987659502', pushName: 'Cliente' });
    const { api } = await env.linkByQr(shop.number, 'contact-pictures');
    const { id } = (await api.call('getInstance')).instance as { id: string };
    const pictureEvents = () => t.eventsOfType('contacts.upsert', id).flatMap((e) => e.contacts).filter((c) => c.id === friend.jid && c.imgUrl !== undefined);

    // Bad input changes nothing: no picture, no notification.
    assert.deepEqual([(await setPicture(friend.number, 'bm90IGEganBlZw==')).status, sim.simulator.profile(friend.number).picture], [400, null]);

    assert.equal((await setPicture(friend.number, SAMPLES.jpeg.toString('base64'))).status, 200);
    const url = sim.simulator.profile(friend.number).picture?.url;
    assert.ok(url, 'the phone has a picture');
    const changed = await t.waitFor(() => pictureEvents()[0], 20_000, 'the contact event with the new picture');
    assert.deepEqual(changed, { id: friend.jid, imgUrl: url });
    assert.equal((await api.call('getContact', { params: { number: friend.number } })).data.imgUrl, url);

    assert.equal((await setPicture(friend.number, null)).status, 200);
    const removed = await t.waitFor(() => pictureEvents()[1], 20_000, 'the contact event of the removal');
    assert.deepEqual(removed, { id: friend.jid, imgUrl: null });
    const stored = (await api.call('getContact', { params: { number: friend.number } })).data;
    assert.equal('imgUrl' in stored, false, `no picture URL is stored: ${JSON.stringify(stored)}`);
    assert.ok((await api.call('listContacts')).data.every((c) => c.imgUrl === undefined), 'no contact lists a picture URL');
  });
});
