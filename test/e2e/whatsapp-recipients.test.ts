import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/test-server.js';
import { connectedWhatsApp, startWhatsAppServer } from '../support/whatsapp.js';

// A send to a Brazilian ninth-digit number through the real server goes to the account WhatsApp answers (issue 25,
// defect 3), here with the fake socket: the send is queued under that account. The same on the simulator's account
// filed without the ninth digit, delivered and answered, is in whatsapp-sim-verdicts.test.ts; the 404 for a number
// not on WhatsApp in whatsapp-sim-defects.test.ts.
describe('WhatsApp recipients through the server', () => {
  let t: TestServer;
  let instance: Awaited<ReturnType<typeof connectedWhatsApp>>;
  before(async () => {
    t = await startWhatsAppServer();
    instance = await connectedWhatsApp(t, 'wa-recipients', '5511900000801');
  });
  after(() => t.stop());

  it('accepts a send to a ninth-digit number under the account WhatsApp answered', async () => {
    instance.socket.results.set('onWhatsApp', [{ jid: '551188887777@s.whatsapp.net', exists: true }]);
    const res = await t.client(instance.key).call('sendText', { body: { to: '5511988887777', text: 'oi' } });
    // Accepted (and queued, as WhatsApp's pacing wants) under the account WhatsApp answered, not the number dialled.
    assert.equal(res.data.key.remoteJid, '551188887777@s.whatsapp.net');
    const queued = (await t.client(instance.key).call('listQueue')).data as { key: { remoteJid: string } }[];
    assert.deepStrictEqual(queued.map((q) => q.key.remoteJid), ['551188887777@s.whatsapp.net']);
  });
});
