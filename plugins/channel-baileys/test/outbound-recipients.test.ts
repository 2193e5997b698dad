import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FakeSocket } from '../src/testing/index.js';
import { eachOpenHarnessWithoutFetch, type Harness } from './harness.js';

// Sends go to the account WhatsApp answers for a number (issue 25, defect 3).
describe('sending to a phone number', () => {
  let h: Harness;
  let socket: FakeSocket;
  eachOpenHarnessWithoutFetch((harness, open) => {
    h = harness;
    socket = open;
  });
  const send = (to: string, text: string) => h.adapter.capabilities.messaging!.send({ to, content: { type: 'text', text } });

  it('a Brazilian mobile registered before the ninth digit: the message goes to the JID WhatsApp answers, looked up once', async () => {
    socket.results.set('onWhatsApp', [{ jid: '551188887777@s.whatsapp.net', exists: true }]);
    const record = await send('5511988887777', 'oi');
    await send('5511988887777', 'tudo bem?');
    assert.deepStrictEqual(socket.callsTo('onWhatsApp'), [['5511988887777@s.whatsapp.net']]);
    assert.deepStrictEqual(socket.callsTo('sendMessage').map((call) => call[0]), ['551188887777@s.whatsapp.net', '551188887777@s.whatsapp.net']);
    assert.equal(record.key.remoteJid, '551188887777@s.whatsapp.net');
  });

  it('a number not on WhatsApp is refused with 404 not_on_whatsapp, and nothing is sent', async () => {
    socket.results.set('onWhatsApp', []);
    await assert.rejects(send('5511900009999', 'hello?'), { status: 404, code: 'not_on_whatsapp', message: 'WhatsApp account of 5511900009999 not found' });
    assert.deepStrictEqual(socket.callsTo('sendMessage'), []);
  });

  it('a lookup WhatsApp does not answer (Baileys\' timed-out query) is a retryable 502, not not_on_whatsapp, and is not remembered', async () => {
    socket.results.set('onWhatsApp', undefined);
    await assert.rejects(send('5511900008888', 'alô?'), { status: 502, code: 'upstream_error', details: { retryable: true, upstreamCode: 408 } });
    assert.deepStrictEqual(socket.callsTo('sendMessage'), []);
    socket.results.set('onWhatsApp', [{ jid: '5511900008888@s.whatsapp.net', exists: true }]);
    await send('5511900008888', 'alô?');
    assert.deepStrictEqual(socket.callsTo('onWhatsApp').length, 2, 'asked again');
    assert.deepStrictEqual(socket.callsTo('sendMessage').map((call) => call[0]), ['5511900008888@s.whatsapp.net']);
  });

  it('groups are sent to as they are, without a lookup', async () => {
    await send('120363000000000001@g.us', 'hi all');
    assert.deepStrictEqual(socket.callsTo('onWhatsApp'), []);
  });
});
