import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunningSimulator } from '../src/index.js';
import { controlApi, refusal, useSimulator } from './client.js';
import { JPEG } from './jpeg.js';

describe('HTTP control API: receipts, disappearing messages, view-once and undecryptable sends', () => {
  let sim: RunningSimulator;
  const call = controlApi(() => sim);
  useSimulator((started) => { sim = started; }, { media: true });

  it('sets receipt settings and timers, reads and plays with a chosen time, sends view-once and undecryptable messages', async () => {
    const [ana, beto] = ['5511987657501', '5511987657502'];
    for (const number of [ana, beto]) assert.equal((await call('POST', '/accounts', { number })).status, 201);
    assert.deepEqual((await call('POST', `/accounts/${beto}/receipts`, { t: 1_700_000_000, readAtOnce: true })).body, { t: 1_700_000_000, readAtOnce: true });
    assert.deepEqual((await call('POST', `/accounts/${beto}/receipts`, { t: null })).body, { readAtOnce: true });

    const sent = await call('POST', `/accounts/${ana}/messages`, { to: beto, text: 'oi' });
    assert.equal(sent.status, 201);
    assert.equal((await call('POST', `/accounts/${beto}/messages/received/${sent.body.id}/read`, { t: 1_700_000_500 })).status, 204);
    const receipts = (await call('GET', `/accounts/${ana}/messages/sent`)).body[0].receipts;
    assert.deepEqual(receipts.map((r: { type: string }) => r.type), ['delivery', 'read', 'read']);
    assert.equal(receipts.at(-1).t, 1_700_000_500);

    const timer = await call('POST', `/accounts/${ana}/chats/${beto}/disappearing`, { expiration: 604_800 });
    assert.equal(timer.status, 201);
    assert.deepEqual((await call('GET', `/accounts/${beto}/chats/${ana}/disappearing`)).body, { between: [ana, beto], expiration: 604_800, setBy: ana, setAt: timer.body.timestamp });
    const group = (await call('POST', `/accounts/${ana}/groups`, { subject: 'G', participants: [beto] })).body;
    assert.equal((await call('POST', `/accounts/${beto}/groups/${group.jid}/disappearing`, { expiration: 86_400 })).body.ephemeral, 86_400);

    const viewOnce = await call('POST', `/accounts/${ana}/media`, { to: beto, kind: 'image', data: JPEG.toString('base64'), mimetype: 'image/jpeg', viewOnce: true });
    assert.equal(viewOnce.status, 201);
    const broken = await call('POST', `/accounts/${ana}/messages`, { to: beto, text: 'ilegível', companions: 'corrupt' });
    assert.equal(broken.status, 201);
    const image = { kind: 'image', data: JPEG.toString('base64'), mimetype: 'image/jpeg' };
    const album = await call('POST', `/accounts/${ana}/albums`, { to: beto, images: [image, { ...image, caption: 'segunda' }] });
    assert.equal(album.status, 201);
    const received = (await call('GET', `/accounts/${beto}/messages/received`)).body as Array<{ id: string; message: any }>;
    const got = received.map((m) => m.id);
    assert.ok(got.includes(viewOnce.body.id) && got.includes(broken.body.id), 'the phone itself gets both');
    assert.deepEqual(received.find((m) => m.id === album.body.parent.id)!.message.albumMessage, { expectedImageCount: 2 });
    const second = received.find((m) => m.id === album.body.images[1].id)!.message;
    assert.deepEqual([second.imageMessage.caption, second.messageContextInfo.messageAssociation.parentMessageKey.id], ['segunda', album.body.parent.id]);
  });

  it('refuses bad input with clear JSON errors and changes nothing', async () => {
    const [ana, beto] = ['5511987657511', '5511987657512'];
    for (const number of [ana, beto]) await call('POST', '/accounts', { number });
    const sent = await call('POST', `/accounts/${ana}/messages`, { to: beto, text: 'oi' });
    const cases: Array<[string, string, unknown, number, string]> = [
      ['POST', `/accounts/${beto}/receipts`, { t: 'ontem' }, 400, 'validation_failed:invalid_receipt_time body.t'],
      ['POST', `/accounts/${beto}/receipts`, { t: 12 }, 400, 'validation_failed:invalid_receipt_time body.t'],
      ['POST', `/accounts/${beto}/receipts`, { readAtOnce: 'yes' }, 400, 'validation_failed:invalid_receipt_settings body.readAtOnce'],
      ['POST', `/accounts/${beto}/receipts`, { late: true }, 400, 'validation_failed body.late'],
      ['POST', `/accounts/${beto}/messages/received/${sent.body.id}/read`, { t: 1.5 }, 400, 'validation_failed:invalid_receipt_time body.t'],
      ['POST', `/accounts/${beto}/messages/received/${sent.body.id}/played`, {}, 409, 'not_playable'],
      ['POST', `/accounts/${beto}/messages/received/NOPE/played`, {}, 404, 'message_not_found'],
      ['POST', `/accounts/${ana}/chats/${beto}/disappearing`, { expiration: 3600 }, 400, 'validation_failed:invalid_timer body.expiration'],
      ['POST', `/accounts/${ana}/chats/${beto}/disappearing`, {}, 400, 'validation_failed body.expiration'],
      ['POST', `/accounts/${ana}/chats/${ana}/disappearing`, { expiration: 86_400 }, 400, 'validation_failed path.peer'],
      ['POST', `/accounts/${ana}/groups/120363000000000000@g.us/disappearing`, { expiration: 86_400 }, 404, 'group_not_found'],
      ['POST', `/accounts/${ana}/media`, { to: beto, kind: 'audio', data: 'AAAA', mimetype: 'audio/ogg', viewOnce: true }, 400, 'validation_failed:invalid_media body.kind'],
      ['POST', `/accounts/${ana}/messages`, { to: beto, text: 'x', companions: 'lost' }, 400, 'validation_failed body.companions'],
      ['POST', `/accounts/${ana}/messages`, { to: beto, text: 'x', companions: 'toString' }, 400, 'validation_failed body.companions'],
      ['POST', `/accounts/${ana}/messages`, { to: beto, text: '', companions: 'after-history' }, 400, 'validation_failed:invalid_text body.text'],
      ['POST', `/accounts/${ana}/albums`, { to: beto, images: [{ kind: 'image', data: 'AAAA', mimetype: 'image/jpeg' }] }, 400, 'validation_failed:invalid_album body.images'],
      ['POST', `/accounts/${ana}/albums`, { to: beto, images: 'all' }, 400, 'validation_failed:invalid_album body.images'],
      ['POST', `/accounts/${ana}/albums`, { to: beto, images: [{ kind: 'image', mimetype: 'image/jpeg' }, {}] }, 400, 'validation_failed body.data'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const res = await call(method, path, body);
      assert.deepEqual([res.status, refusal(res)], [status, code], `${method} ${path} ${JSON.stringify(body)}`);
    }
    assert.deepEqual((await call('GET', `/accounts/${beto}/receipts`)).status, 405);
    assert.deepEqual(sim.simulator.setReceipts(beto, {}), { t: undefined, readAtOnce: false });
    assert.equal(sim.simulator.chatTimer(ana, beto).expiration, 0);
    assert.equal((await call('GET', `/accounts/${ana}/messages/sent`)).body.length, 1);
  });
});
