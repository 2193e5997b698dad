import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChannelEventPayload, Referral } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { receivedFrom, testLink, useInboundHarness } from '@parley/meta-graph/testing';
import { createMessengerDriver } from '../src/index.js';

const PAGE = '106123456789012';
const USER = '7012345678901234';
const MID = 'm_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBN';
const DAY_MS = 24 * 3600_000;

const link = testLink('messenger', PAGE, { accessToken: 'EAAMpagetoken000000000000', appSecret: 'messenger-app-secret-abcdef012345', verifyToken: 'verify-token-messenger-5678' });
const received = receivedFrom('messenger', USER);

const AD: Referral = {
  sourceType: 'ad', sourceId: '23851234567890123', headline: 'Winter jackets -30%', mediaType: 'image',
  thumbnailUrl: 'https://scontent.xx.fbcdn.net/v/t45.1600-4/ad-winter.jpg', ref: 'winter-sale',
};

function referred(event: ChannelEventPayload, referral: Referral): ChannelEventPayload {
  assert.equal(event.type, 'message');
  return { ...event, message: { ...event.message, referral } };
}

const askText = (id: string, seconds: number, text: string) => received(id, seconds, { type: 'text', body: text }, { extendedTextMessage: { text } });

// Ad and link attribution (spec 6.3 `message-referral`) and the handover protocol's standby channel.
describe('messenger referrals and standby', () => {
  let now = 1_718_000_020_000;
  const inbound = useInboundHarness({
    testFileUrl: import.meta.url, createDriver: () => createMessengerDriver({ profileLookup: false, clock: { now: () => now } }),
    storage: () => new MemoryStorage(), instanceId: 'ins_fb', link,
  });
  const { deliver } = inbound;

  it('gives the user\'s next message the ad a messaging_referrals event named, once', async () => {
    now = 1_718_000_020_000;
    assert.deepStrictEqual(await deliver('fb-referral-ad'), []);
    await deliver('fb-referral-text');
    // The same text again under another id: the referral was used up by the first.
    const again = Buffer.from(inbound.fixture('fb-referral-text').toString('utf8').replace(`${MID}1A`, `${MID}1E`));
    assert.equal((await inbound.harness.notify(again, inbound.signed(again))).status, 200);
    assert.deepStrictEqual(inbound.harness.emitted, [
      referred(askText(`${MID}1A`, 1718000011, 'Is the blue one in stock?'), AD),
      askText(`${MID}1E`, 1718000011, 'Is the blue one in stock?'),
    ]);
  });

  it('keeps a referral without a message for 24 hours only, and across a restart', async () => {
    now = 1_718_000_020_000;
    await deliver('fb-referral-ad');
    // A fresh driver over the same storage (a restart) still knows it, within the window.
    const restarted = inbound.rewire();
    const body = inbound.fixture('fb-referral-text');
    now = 1_718_000_020_000 + DAY_MS;
    assert.equal((await restarted.notify(body, inbound.signed(body))).status, 200);
    assert.deepStrictEqual(restarted.emitted, [referred(askText(`${MID}1A`, 1718000011, 'Is the blue one in stock?'), AD)]);

    now = 1_718_000_020_000;
    await deliver('fb-referral-ad');
    now = 1_718_000_020_000 + DAY_MS + 1;
    const late = Buffer.from(body.toString('utf8').replace(`${MID}1A`, `${MID}1F`));
    assert.equal((await inbound.harness.notify(late, inbound.signed(late))).status, 200);
    assert.deepStrictEqual(inbound.harness.emitted.at(-1), askText(`${MID}1F`, 1718000011, 'Is the blue one in stock?'));
  });

  it('maps a message\'s own referral (Click to Messenger ad) and a Get Started postback\'s (m.me link)', async () => {
    await deliver('fb-message-referral');
    await deliver('fb-postback-referral');
    assert.deepStrictEqual(inbound.harness.emitted, [
      referred(askText(`${MID}1B`, 1718000012, 'I saw your ad'), {
        sourceType: 'ad', sourceId: '23859999999999999', headline: 'Spring collection', mediaType: 'video',
        thumbnailUrl: 'https://scontent.xx.fbcdn.net/v/t15.5256-10/ad-spring-thumb.jpg', ref: 'spring',
      }),
      referred(received(`${MID}1C`, 1718000013, { type: 'button', text: 'Get Started', payload: 'GET_STARTED' }, {
        buttonsResponseMessage: { selectedButtonId: 'GET_STARTED', selectedDisplayText: 'Get Started' },
      }), { sourceType: 'shortlink', ref: 'qr-store-front' }),
    ]);
  });

  it('maps messages of the standby channel (a conversation another app owns) like any other', async () => {
    assert.deepStrictEqual(await deliver('fb-standby'), [askText(`${MID}1D`, 1718000014, 'Are you there?')]);
    // Meta delivers standby events again like any other: once only.
    await deliver('fb-standby');
    assert.equal(inbound.harness.emitted.length, 1);
  });
});
