import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStorage } from '@parley/storage-memory';
import { receivedFrom, testLink, useInboundHarness, useMockGraph } from '@parley/meta-graph/testing';
import { createMessengerDriver } from '../src/index.js';

const PAGE = '106123456789012';
const USER = '7012345678901234';
const SENT_MID = 'm_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBNsent';
const INBOX_MID = 'm_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBNinbox';

const link = testLink('messenger', PAGE, { accessToken: 'EAAMpagetoken000000000000', appSecret: 'messenger-app-secret-abcdef012345', verifyToken: 'verify-token-messenger-5678' });

function echo(mid: string, text: string): Buffer {
  return Buffer.from(JSON.stringify({ object: 'page', entry: [{ id: PAGE, time: 1718000010500, messaging: [{
    sender: { id: PAGE }, recipient: { id: USER }, timestamp: 1718000010000, message: { mid, is_echo: true, app_id: 1517776481860111, text },
  }] }] }));
}

// Own messages sent through the API are reported by statuses, as on WhatsApp; the account's messages sent elsewhere are from-me messages (issue 25, defect 11).
describe('messenger echoes', () => {
  const graph = useMockGraph();
  const inbound = useInboundHarness({
    testFileUrl: import.meta.url, createDriver: () => createMessengerDriver({ profileLookup: false, graphBaseUrl: graph.url }),
    storage: () => new MemoryStorage(), instanceId: 'ins_fb', link,
  });

  async function notify(body: Buffer): Promise<void> {
    assert.equal((await inbound.harness.notify(body, inbound.signed(body))).status, 200);
  }

  it('the echo of a message sent through the API is its sent status, not a message event', async () => {
    graph.on('POST', '/v26.0/me/messages', { status: 200, body: { recipient_id: USER, message_id: SENT_MID } });
    const adapter = await inbound.harness.adapter('ins_fb');
    await adapter.capabilities.messaging!.send({ to: USER, content: { type: 'text', text: 'Yes, we do.' } });
    await notify(echo(SENT_MID, 'Yes, we do.'));
    assert.deepStrictEqual(inbound.harness.emitted, [
      { type: 'message.status', messageId: SENT_MID, chatJid: USER, recipientId: USER, status: 'sent', timestamp: 1718000010 },
    ]);
  });

  it('an echo of a message sent from the Page inbox stays a from-me message', async () => {
    await notify(echo(INBOX_MID, 'Typed in the inbox'));
    const expected = receivedFrom('messenger', USER)(INBOX_MID, 1718000010, { type: 'text', body: 'Typed in the inbox' }, { extendedTextMessage: { text: 'Typed in the inbox' } });
    assert.equal(expected.type, 'message');
    const [event] = inbound.harness.emitted;
    assert.ok(event?.type === 'message');
    assert.deepStrictEqual([event.message.id, event.message.fromMe, event.message.content], [INBOX_MID, true, { type: 'text', body: 'Typed in the inbox' }]);
  });
});
