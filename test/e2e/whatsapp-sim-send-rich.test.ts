import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { MediaServer } from '../support/media-server.js';
import { memberOf, phoneGot } from '../support/simulated-phone.js';
import { useSimulatedWhatsApp, type SimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/**
 * Spec 4.2's non-media sends through Parley's REST API, on Baileys' real socket against the simulator:
 * texts with mentions and a link preview, location, contact cards, link, poll, survey, event, request for
 * the phone number, a group invite, and the sends that act on an earlier message (reaction, pin, unpin), each checked in
 * the message the receiving phone decrypted.
 */
describe('WhatsApp rich sends, decrypted on the simulated phone', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  let pages: MediaServer;
  let api: Awaited<ReturnType<SimulatedWhatsApp['linkByQr']>>['api'];
  const shop = '5511987659001';
  const friend = '5511987659002';
  const friendJid = `${friend}@s.whatsapp.net`;
  const env = useSimulatedWhatsApp({ allowPrivateUrls: true });
  before(() => {
    ({ sim, t } = env);
  });
  before(async () => {
    const html = '<html><head><meta property="og:title" content="Promoção de verão"><meta property="og:description" content="Tudo pela metade"></head></html>';
    pages = await MediaServer.start({ '/promo': { body: Buffer.from(html), type: 'text/html; charset=utf-8' } });
    ({ api } = await env.shopWithFriend(shop, friend, 'rich-sends'));
  });
  after(async () => {
    await pages.stop();
  });
  /** The content member of the message the friend's phone decrypted. */
  const arrived = async (sent: { data: { key: { id: string } } }) => memberOf((await phoneGot(sim, t, friend, sent.data.key.id)).message);

  it('text mentioning the friend, and a text whose link Parley previews (fetched through the guarded client)', { timeout: 60_000 }, async () => {
    const [name, mention] = await arrived(await api.call('sendText', { body: { to: friend, text: `Oi @${friend}, chegou!`, mentions: [friend] } }));
    assert.equal(name, 'extendedTextMessage');
    assert.equal(mention.text, `Oi @${friend}, chegou!`);
    assert.deepEqual(mention.contextInfo?.mentionedJid, [friendJid]);

    const link = `${pages.url}/promo`;
    const [previewName, preview] = await arrived(await api.call('sendText', { body: { to: friend, text: `Veja ${link}`, linkPreview: true } }));
    assert.equal(previewName, 'extendedTextMessage');
    assert.deepEqual([preview.text, preview.matchedText, preview.title, preview.description], [`Veja ${link}`, link, 'Promoção de verão', 'Tudo pela metade']);
    assert.equal(pages.hits.get('/promo'), 1);
  });

  it('location, live location, one contact card and several', { timeout: 60_000 }, async () => {
    const [locName, loc] = await arrived(await api.call('sendLocation', { body: { to: friend, location: { latitude: -23.5505, longitude: -46.6333, address: 'Praça da Sé' } } }));
    assert.equal(locName, 'locationMessage');
    assert.deepEqual([loc.degreesLatitude, loc.degreesLongitude, loc.address], [-23.5505, -46.6333, 'Praça da Sé']);

    const [liveName, live] = await arrived(await api.call('sendLiveLocation', { body: { to: friend, latitude: -22.9, longitude: -43.2, caption: 'a caminho' } }));
    assert.equal(liveName, 'liveLocationMessage');
    assert.deepEqual([live.degreesLatitude, live.degreesLongitude, live.caption], [-22.9, -43.2, 'a caminho']);

    const [cardName, card] = await arrived(await api.call('sendContact', { body: { to: friend, contact: { fullName: 'Ana Souza', phoneNumber: '5511912340001', organization: 'Loja' } } }));
    assert.ok(cardName === 'contactMessage' || cardName === 'contactsArrayMessage', cardName);
    const cards = cardName === 'contactMessage' ? [card] : card.contacts;
    assert.equal(cards.length, 1);
    assert.match(cards[0].vcard, /FN:Ana Souza/);
    assert.match(cards[0].vcard, /waid=5511912340001/);
    assert.match(cards[0].vcard, /ORG:Loja/);

    const [manyName, many] = await arrived(await api.call('sendContacts', {
      body: { to: friend, displayName: 'Equipe', contacts: [{ fullName: 'Ana Souza', phoneNumber: '5511912340001' }, { fullName: 'Bia Lima', phoneNumber: '5511912340002' }] },
    }));
    assert.equal(manyName, 'contactsArrayMessage');
    assert.equal(many.displayName, 'Equipe');
    assert.deepEqual(many.contacts.map((c: { vcard: string }) => /FN:(.*)/.exec(c.vcard)?.[1]), ['Ana Souza', 'Bia Lima']);
  });

  it('link card, poll, survey, event and a request for the phone number', { timeout: 60_000 }, async () => {
    const [linkName, link] = await arrived(await api.call('sendLink', { body: { to: friend, title: 'Catálogo', text: 'Nosso catálogo', description: 'Verão 2026', sourceUrl: 'https://example.com/catalogo' } }));
    assert.equal(linkName, 'extendedTextMessage');
    assert.match(link.text, /https:\/\/example\.com\/catalogo/);
    assert.deepEqual([link.title, link.description, link.matchedText], ['Catálogo', 'Verão 2026', 'https://example.com/catalogo']);

    const [pollName, poll] = await arrived(await api.call('sendPoll', { body: { to: friend, name: 'Qual cor?', values: ['Azul', 'Verde', 'Rosa'], selectableCount: 2 } }));
    assert.match(pollName, /^pollCreationMessage/);
    assert.deepEqual([poll.name, poll.options.map((o: { optionName: string }) => o.optionName), poll.selectableOptionsCount], ['Qual cor?', ['Azul', 'Verde', 'Rosa'], 2]);

    const [surveyName, survey] = await arrived(await api.call('sendSurvey', { body: { to: friend, name: 'Gostou?', options: ['Sim', 'Não'] } }));
    assert.match(surveyName, /^pollCreationMessage/);
    assert.deepEqual([survey.name, survey.options.length, survey.selectableOptionsCount], ['Gostou?', 2, 1]);

    const startTime = '2026-12-20T18:00:00Z';
    const [eventName, event] = await arrived(await api.call('sendEvent', {
      body: { to: friend, name: 'Bazar de Natal', description: 'Descontos', startTime, locationName: 'Loja Centro', locationAddress: 'Rua Direita, 10' },
    }));
    assert.equal(eventName, 'eventMessage');
    assert.deepEqual([event.name, event.description, event.startTime, event.location?.name], ['Bazar de Natal', 'Descontos', Date.parse(startTime) / 1000, 'Loja Centro']);

    const [askName, ask] = await arrived(await api.call('sendRequestPhone', { body: { to: friend } }));
    assert.equal(askName, 'requestPhoneNumberMessage');
    assert.ok(ask);
  });

  it('reaction, pin and unpin name the earlier message by its stanza id', { timeout: 60_000 }, async () => {
    const target = await api.call('sendText', { body: { to: friend, text: 'Pedido #42 confirmado' } });
    const id = target.data.key.id;
    await phoneGot(sim, t, friend, id);
    const [reactName, reaction] = await arrived(await api.call('sendReaction', { body: { text: '👍', msgId: id } }));
    assert.equal(reactName, 'reactionMessage');
    assert.deepEqual([reaction.text, reaction.key.id, reaction.key.fromMe, reaction.key.remoteJid], ['👍', id, true, friendJid]);

    const [pinName, pin] = await arrived(await api.call('pinMessage', { body: { id, duration: 86_400 } }));
    assert.equal(pinName, 'pinInChatMessage');
    assert.deepEqual([pin.key.id, pin.type], [id, 1]);
    const [unpinName, unpin] = await arrived(await api.call('unpinMessage', { body: { id } }));
    assert.equal(unpinName, 'pinInChatMessage');
    assert.deepEqual([unpin.key.id, unpin.type], [id, 2]);
  });

  it('group invite: the card carries the code the simulator issued for a group Parley created', { timeout: 60_000 }, async () => {
    const other = sim.simulator.createAccount({ number: '5511987659003', pushName: 'Outro' });
    const group = (await api.call('createGroup', { body: { name: 'Revendedores', participants: [other.number] } })).data;
    const { inviteCode } = await api.call('getGroupInviteCode', { params: { groupJid: group.id } });
    assert.equal(inviteCode, sim.simulator.getGroup(group.id).inviteCode);
    const [name, invite] = await arrived(await api.call('sendGroupInvite', { body: { to: friend, groupJid: group.id, groupName: 'Revendedores', inviteCode } }));
    assert.equal(name, 'groupInviteMessage');
    assert.deepEqual([invite.groupJid, invite.groupName, invite.inviteCode], [group.id, 'Revendedores', inviteCode]);
  });
});
