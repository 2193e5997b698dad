import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/test-server.js';
import { connectedWhatsApp, startWhatsAppServer } from '../support/whatsapp.js';

// A send to a number not on WhatsApp through the real server: a clear 404 before anything is queued (issue 25, defect 3).
describe('WhatsApp recipients through the server', () => {
  let t: TestServer;
  let instance: Awaited<ReturnType<typeof connectedWhatsApp>>;
  before(async () => {
    t = await startWhatsAppServer();
    instance = await connectedWhatsApp(t, 'wa-recipients', '5511900000801');
  });
  after(() => t.stop());

  it('answers 404 not_on_whatsapp for a number WhatsApp does not know, and keeps nothing', async () => {
    instance.socket.results.set('onWhatsApp', []);
    const res = await t.request('POST', `/${instance.key}/message/text`, { to: '5511900009999', text: 'hello?' });
    assert.deepStrictEqual({ status: res.status, body: res.body }, {
      status: 404, body: { status: 404, error: { code: 'not_on_whatsapp', message: 'WhatsApp account of 5511900009999 not found' } },
    });
    assert.deepStrictEqual(instance.socket.callsTo('sendMessage'), []);
    assert.deepStrictEqual((await t.client(instance.key).call('listQueue')).data, []);
    assert.deepStrictEqual((await t.client(instance.key).call('listChats')).data, []);
  });

  it('accepts a send to a ninth-digit number under the account WhatsApp answered', async () => {
    instance.socket.results.set('onWhatsApp', [{ jid: '551188887777@s.whatsapp.net', exists: true }]);
    const res = await t.client(instance.key).call('sendText', { body: { to: '5511988887777', text: 'oi' } });
    // Accepted (and queued, as WhatsApp's pacing wants) under the account WhatsApp answered, not the number dialled.
    assert.equal(res.data.key.remoteJid, '551188887777@s.whatsapp.net');
    const queued = (await t.client(instance.key).call('listQueue')).data as { key: { remoteJid: string } }[];
    assert.deepStrictEqual(queued.map((q) => q.key.remoteJid), ['551188887777@s.whatsapp.net']);
  });
});
