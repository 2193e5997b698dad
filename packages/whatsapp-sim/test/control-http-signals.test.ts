import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunningSimulator } from '../src/index.js';
import { controlApi, refusal, useSimulator } from './client.js';
import { JPEG } from './jpeg.js';

describe('HTTP control API: presence, chat states, calls, profiles, block lists and privacy', () => {
  let sim: RunningSimulator;
  const call = controlApi(() => sim);
  useSimulator((started) => { sim = started; });

  it('drives a phone\'s presence, typing, calls, profile, blocks and privacy, and shows what each device received', async () => {
    const [ana, beto] = ['5511987659501', '5511987659502'];
    for (const number of [ana, beto]) assert.equal((await call('POST', '/accounts', { number })).status, 201);
    assert.deepEqual((await call('POST', `/accounts/${ana}/presence`, { presence: 'available' })).body.online, true);
    assert.equal((await call('GET', `/accounts/${ana}/presence`)).body.online, true);
    assert.equal((await call('POST', `/accounts/${ana}/chatstate`, { to: beto, state: 'recording' })).status, 204);
    const signals = (await call('GET', `/accounts/${beto}/signals`)).body;
    assert.deepEqual(signals.map((s: { device: string; kind: string; state: string; from: string }) => [s.device, s.kind, s.state, s.from]),
      [['phone', 'chatstate', 'recording', `${ana}@s.whatsapp.net`]]);

    const placed = await call('POST', `/accounts/${ana}/calls`, { to: beto, video: true });
    assert.equal(placed.status, 201);
    assert.deepEqual([placed.body.status, placed.body.video, placed.body.devices], ['offer', true, ['phone']]);
    const ended = await call('POST', `/accounts/${beto}/calls/${placed.body.id}/end`);
    assert.deepEqual([ended.status, ended.body.status, ended.body.events.at(-1).by], [200, 'terminate', 'phone']);
    assert.equal((await call('GET', `/accounts/${ana}/calls`)).body[0].status, 'terminate');
    const answered = await call('POST', `/accounts/${ana}/calls`, { to: beto });
    const accepted = await call('POST', `/accounts/${beto}/calls/${answered.body.id}/accept`);
    assert.deepEqual([accepted.status, accepted.body.status, accepted.body.events.at(-1).by], [200, 'accept', 'phone']);
    assert.equal(refusal(await call('POST', `/accounts/${beto}/calls/${answered.body.id}/accept`)), 'call_not_ringing');
    assert.equal(refusal(await call('POST', `/accounts/${ana}/calls/${answered.body.id}/accept`)), 'call_not_found');

    const profile = await call('POST', `/accounts/${ana}/profile`, { name: 'Ana Paula', status: 'Disponível', picture: JPEG.toString('base64') });
    assert.deepEqual([profile.body.pushName, profile.body.status, profile.body.picture.size], ['Ana Paula', 'Disponível', JPEG.length]);
    assert.equal((await call('GET', `/accounts/${ana}/profile/picture`)).body.data, JPEG.toString('base64'));
    assert.equal((await call('POST', `/accounts/${ana}/profile`, { picture: null })).body.picture, null);
    assert.equal((await call('GET', `/accounts/${ana}/profile/picture`)).status, 404);
    assert.equal((await call('GET', `/accounts/${ana}/profile`)).body.pushName, 'Ana Paula');

    assert.deepEqual((await call('POST', `/accounts/${ana}/blocklist`, { number: beto, blocked: true })).body, [beto]);
    assert.deepEqual((await call('GET', `/accounts/${ana}/blocklist`)).body, [beto]);
    assert.deepEqual((await call('POST', `/accounts/${ana}/blocklist`, { number: beto, blocked: false })).body, []);
    assert.equal((await call('POST', `/accounts/${ana}/privacy`, { settings: { last: 'contacts', online: 'match_last_seen' } })).body.online, 'match_last_seen');
    assert.equal((await call('GET', `/accounts/${ana}/privacy`)).body.last, 'contacts');
  });

  it('refuses bad input with clear JSON errors and changes nothing', async () => {
    const [ana, beto] = ['5511987659511', '5511987659512'];
    for (const number of [ana, beto]) await call('POST', '/accounts', { number });
    const cases: Array<[string, string, unknown, number, string]> = [
      ['POST', `/accounts/${ana}/presence`, { presence: 'busy' }, 400, 'validation_failed:invalid_presence body.presence'],
      ['POST', `/accounts/${ana}/presence`, {}, 400, 'validation_failed body.presence'],
      ['POST', `/accounts/${ana}/chatstate`, { to: beto, state: 'typing' }, 400, 'validation_failed:invalid_chat_state body.state'],
      ['POST', `/accounts/${ana}/chatstate`, { to: '5511000000000', state: 'paused' }, 404, 'account_not_found'],
      ['POST', `/accounts/${ana}/calls`, { to: beto, video: 'yes' }, 400, 'validation_failed body.video'],
      ['POST', `/accounts/${ana}/calls`, { to: ana }, 400, 'validation_failed:invalid_call body.to'],
      ['POST', `/accounts/${ana}/calls/NOPE/end`, undefined, 404, 'call_not_found'],
      ['POST', `/accounts/${ana}/calls/NOPE/accept`, undefined, 404, 'call_not_found'],
      ['POST', `/accounts/${ana}/calls/NOPE/accept`, { now: true }, 400, 'validation_failed body.now'],
      ['POST', `/accounts/${ana}/profile`, {}, 400, 'validation_failed:invalid_profile body.name,body.status,body.picture'],
      ['POST', `/accounts/${ana}/profile`, { name: '' }, 400, 'validation_failed:invalid_profile body.name'],
      ['POST', `/accounts/${ana}/profile`, { status: 'x'.repeat(140) }, 400, 'validation_failed:invalid_profile body.status'],
      ['POST', `/accounts/${ana}/profile`, { picture: 'not base64!' }, 400, 'validation_failed body.picture'],
      ['POST', `/accounts/${ana}/profile`, { name: 'Ok', picture: Buffer.from('GIF89a').toString('base64') }, 400, 'validation_failed:invalid_profile body.picture'],
      ['POST', `/accounts/${ana}/blocklist`, { number: beto, blocked: 'yes' }, 400, 'validation_failed body.blocked'],
      ['POST', `/accounts/${ana}/blocklist`, { number: ana, blocked: true }, 400, 'validation_failed:invalid_block body.number'],
      ['POST', `/accounts/${ana}/privacy`, { settings: [] }, 400, 'validation_failed body.settings'],
      ['POST', `/accounts/${ana}/privacy`, { settings: { last: 'none', colour: 'blue' } }, 400, 'validation_failed:invalid_privacy body.settings.colour'],
      ['POST', `/accounts/${ana}/privacy`, { settings: { last: 'nobody' } }, 400, 'validation_failed:invalid_privacy body.settings.last'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const answer = await call(method, path, body);
      assert.deepEqual([answer.status, refusal(answer)], [status, code], `${method} ${path} ${JSON.stringify(body)}`);
    }
    assert.deepEqual((await call('GET', `/accounts/${ana}/signals`)).body, []);
    assert.deepEqual((await call('GET', `/accounts/${ana}/calls`)).body, []);
    const profile = (await call('GET', `/accounts/${ana}/profile`)).body;
    assert.deepEqual([profile.pushName, profile.status, profile.picture], ['Phone 9511', '', null]);
    assert.deepEqual((await call('GET', `/accounts/${ana}/blocklist`)).body, []);
    assert.equal((await call('GET', `/accounts/${ana}/privacy`)).body.last, 'all');
  });
});
