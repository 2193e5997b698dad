import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AccountView, ReceivedMessage, RunningSimulator, SentMessage } from '../src/index.js';
import { refusal, TestClient, waitFor, useSimulator } from './client.js';

describe('HTTP control API', () => {
  let sim: RunningSimulator;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${sim.controlUrl}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  useSimulator((started) => { sim = started; });

  it('drives linking, messages both ways, receipts and a forced close over HTTP', { timeout: 60_000 }, async () => {
    const root = await call('GET', '/');
    assert.equal(root.body.websocketUrl, sim.url);
    assert.equal(root.body.rootPublicKey, sim.rootPublicKey.toString('base64'));
    const me = (await call('POST', '/accounts', { number: '+5511987655001', pushName: 'Eu' })).body as AccountView;
    const friend = await call('POST', '/accounts', { number: '5511987655002', pushName: 'Duda', business: true });
    assert.equal(friend.status, 201);
    assert.equal(friend.body.business, true);
    const client = new TestClient(sim.url);
    client.connect();
    await waitFor(() => client.seen.qrs.length > 0, 'a QR');
    const pending = await call('GET', '/clients/pending');
    assert.equal(pending.body.length, 1);
    assert.ok(client.seen.qrs[0]!.includes(pending.body[0].refs[0]));
    const scanned = await call('POST', `/accounts/${me.number}/scan`, { qr: client.seen.qrs[0] });
    assert.equal(scanned.status, 200);
    assert.equal(scanned.body.jid, `${me.number}:1@s.whatsapp.net`);
    await waitFor(() => client.closed, 'the restart');
    client.connect();
    await waitFor(() => client.opened, 'open');
    const sent = await call('POST', `/accounts/${friend.body.number}/messages`, { to: me.number, text: 'pelo HTTP' });
    assert.equal(sent.status, 201);
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === sent.body.id), 'the upsert');
    const reply = await client.sock!.sendMessage(friend.body.jid, { text: 'resposta' });
    await waitFor(() => sim.simulator.received(friend.body.number).some((m) => m.id === reply!.key.id), 'the phone to receive');
    const received = (await call('GET', `/accounts/${friend.body.number}/messages/received`)).body as ReceivedMessage[];
    assert.equal(received.find((m) => m.id === reply!.key.id)?.text, 'resposta');
    assert.equal((await call('POST', `/accounts/${friend.body.number}/messages/received/${reply!.key.id}/read`)).status, 204);
    await waitFor(() => client.statusOf(reply!.key.id!) === 4, 'the read receipt');
    const sentList = (await call('GET', `/accounts/${friend.body.number}/messages/sent`)).body as SentMessage[];
    assert.equal(sentList[0]!.text, 'pelo HTTP');
    assert.deepEqual((await call('GET', `/accounts/${friend.body.number}/messages/undecryptable`)).body, []);
    assert.equal((await call('POST', `/clients/${encodeURIComponent(scanned.body.jid)}/close`, { code: 503 })).status, 204);
    await waitFor(() => client.closed, 'the forced close');
    assert.equal(client.seen.closeCode, 503);
    const account = (await call('GET', `/accounts/${me.number}`)).body as AccountView;
    assert.equal(account.devices[0]!.online, false);
    assert.equal((await call('DELETE', `/accounts/${me.number}/devices/1`)).status, 204);
    assert.deepEqual((await call('GET', `/accounts/${me.number}`)).body.devices, []);
  });

  it('starts, shows and ends an outage over HTTP', async () => {
    assert.deepEqual((await call('POST', '/outage', { mode: 'blackhole', durationMs: 60_000 })).body.mode, 'blackhole');
    assert.equal((await call('GET', '/outage')).body.mode, 'blackhole');
    const conflict = await call('POST', '/outage', { mode: 'refuse' });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.error.code, 'outage_in_progress');
    assert.deepEqual((await call('DELETE', '/outage')).body, { mode: 'none' });
  });

  it('answers errors in Parley\'s error model: {status, error: {code, message, details?}}, 400 validation_failed with details.fields', async () => {
    const missing = await call('POST', '/accounts', {});
    assert.deepEqual([missing.status, missing.body], [400, {
      status: 400, error: { code: 'validation_failed', message: 'number is required', details: { fields: [{ field: 'body.number', message: 'number is required' }] } },
    }]);
    const timer = await call('POST', '/accounts/5511987655001/chats/5511987655002/disappearing', { expiration: 3600 });
    assert.equal(timer.body.error.code, 'validation_failed');
    assert.deepEqual(timer.body.error.details, { value: 3600, fields: [{ field: 'body.expiration', message: timer.body.error.message }], reason: 'invalid_timer' });
    const json = await call('POST', '/accounts', '{"number": ');
    assert.deepEqual([json.status, json.body], [400, { status: 400, error: { code: 'malformed_json', message: 'the body is not valid JSON' } }]);
    const notFound = await call('GET', '/accounts/5599999999999');
    assert.deepEqual([notFound.status, notFound.body.status, notFound.body.error.code], [404, 404, 'account_not_found']);
  });

  it('answers bad requests with clear JSON errors and changes nothing', async () => {
    const before = (await call('GET', '/accounts')).body.length;
    const sentBefore = (await call('GET', '/accounts/5511987655001/messages/sent')).body.length;
    const cases: Array<[string, string, unknown, number, string, Record<string, string>?]> = [
      ['POST', '/accounts', '{"number": ', 400, 'malformed_json'],
      ['POST', '/accounts', '[1]', 400, 'validation_failed body'],
      ['POST', '/accounts', {}, 400, 'validation_failed body.number'],
      ['POST', '/accounts', { number: 5511 }, 400, 'validation_failed body.number'],
      ['POST', '/accounts', { number: 'abc' }, 400, 'validation_failed:invalid_number body.number'],
      ['POST', '/accounts', { number: '5511987655009', business: 'yes' }, 400, 'validation_failed body.business'],
      ['POST', '/accounts', { number: '5511987655009', pushName: 'x'.repeat(101) }, 400, 'validation_failed:invalid_push_name body.pushName'],
      ['POST', '/accounts', 'number=1', 415, 'unsupported_media_type', { 'content-type': 'text/plain' }],
      ['POST', '/accounts', JSON.stringify({ number: '5511987655009', pad: 'x'.repeat(300_000) }), 413, 'payload_too_large'],
      ['GET', '/accounts/5599999999999', undefined, 404, 'account_not_found'],
      ['POST', '/accounts/5599999999999/messages', { to: '5511987655001', text: 'x' }, 404, 'account_not_found'],
      ['POST', '/accounts/5511987655001/messages', { to: '5511987655002', text: '' }, 400, 'validation_failed:invalid_text body.text'],
      ['POST', '/accounts/5511987655001/scan', { qr: 'nonsense' }, 400, 'validation_failed:invalid_qr body.qr'],
      ['POST', '/accounts/5511987655001/pairing-code', { code: '12' }, 400, 'validation_failed:invalid_code body.code'],
      ['DELETE', '/accounts/5511987655001/devices/x', undefined, 400, 'validation_failed path.device'],
      ['POST', '/outage', { mode: 'sometimes' }, 400, 'validation_failed:invalid_mode body.mode'],
      ['POST', '/outage', { mode: 'refuse', durationMs: -1 }, 400, 'validation_failed:invalid_duration body.durationMs'],
      ['POST', '/clients/x/close', { code: 'soon' }, 400, 'validation_failed body.code'],
      ['POST', '/outage', { mode: 'slow' }, 400, 'validation_failed:invalid_latency body.latencyMs'],
      ['POST', '/login-limit', { limit: { max: 0, windowMs: 10 } }, 400, 'validation_failed:invalid_login_limit body.limit.max,body.limit.windowMs'],
      ['POST', '/accounts/5511987655001/app-state', { changes: [] }, 400, 'validation_failed:invalid_change body.changes'],
      ['POST', '/accounts/5511987655001/app-state', { changes: [{ kind: 'nap' }] }, 400, 'validation_failed:invalid_change body.changes[0].kind'],
      ['POST', '/accounts/5511987655002/catalog', { name: 'Bolo', price: -1, currency: 'brl' }, 400, 'validation_failed:invalid_product body.price,body.currency'],
      // A member a route does not take is refused, as Parley refuses one it does not document: a typo is no silent default.
      ['POST', '/accounts', { number: '5511987655009', pushname: 'Ana' }, 400, 'validation_failed body.pushname'],
      ['POST', '/outage', { mode: 'refuse', durationMS: 100 }, 400, 'validation_failed body.durationMS'],
      ['POST', '/accounts/5511987655001/messages', { to: '5511987655002', text: 'x', colour: 'red' }, 400, 'validation_failed body.colour'],
      ['POST', '/accounts/5511987655001/messages/location', { to: '5511987655002', latitude: 1, longitude: 2, nome: 'x', endereco: 'y' }, 400, 'validation_failed body.nome,body.endereco'],
      ['POST', '/accounts/5511987655001/messages/nap', { to: '5511987655002' }, 404, 'unknown_kind'],
      ['POST', '/accounts/5511987655002/catalog', { name: 'Bolo', price: 10, currency: 'BRL', stock: 3 }, 400, 'validation_failed body.stock'],
      ['GET', '/nowhere', undefined, 404, 'route_not_found'],
      ['PUT', '/accounts', undefined, 405, 'method_not_allowed'],
    ];
    for (const [method, path, body, status, code, headers] of cases) {
      const res = await call(method, path, body, headers);
      assert.equal(res.status, status, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(refusal(res), code, `${method} ${path}`);
    }
    const duplicate = await call('POST', '/accounts', { number: '5511987655001' });
    assert.equal(duplicate.status, 409);
    assert.equal((await call('GET', '/accounts')).body.length, before);
    assert.equal((await call('GET', '/accounts/5511987655001/messages/sent')).body.length, sentBefore, 'nothing sent');
    assert.equal((await call('GET', '/outage')).body.mode, 'none');
    assert.deepEqual((await call('GET', '/login-limit')).body, { limit: null });
    assert.deepEqual((await call('GET', '/accounts/5511987655002/catalog')).body, []);
  });

  it('phones create groups, change members and send into them over HTTP; the members\' phones decrypt', async () => {
    const [ana, beto, caio] = ['5511987655101', '5511987655102', '5511987655103'];
    for (const number of [ana, beto, caio]) await call('POST', '/accounts', { number });
    assert.equal((await call('POST', `/accounts/${ana}/groups`, { subject: 'Família', participants: beto })).status, 400);
    const before = (await call('GET', '/groups')).body.length;
    const created = await call('POST', `/accounts/${ana}/groups`, { subject: 'Família', participants: [beto] });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.members.map((m: { number: string; role: string }) => `${m.number} ${m.role}`), [`${ana} superadmin`, `${beto} member`]);
    assert.equal((await call('GET', '/groups')).body.length, before + 1);
    const jid = encodeURIComponent(created.body.jid);
    const refused = await call('POST', `/accounts/${beto}/groups/${jid}/participants`, { action: 'add', participants: [caio] });
    assert.deepEqual([refused.status, refused.body.error.code], [403, 'not_an_admin']);
    assert.equal((await call('POST', `/accounts/${ana}/groups/${jid}/participants`, { action: 'invite', participants: [caio] })).status, 400);
    const added = await call('POST', `/accounts/${ana}/groups/${jid}/participants`, { action: 'add', participants: [caio, '5511900000002'] });
    assert.deepEqual(added.body, [{ number: caio, status: 200 }, { number: '5511900000002', status: 404 }]);
    const sent = await call('POST', `/accounts/${ana}/groups/${jid}/messages`, { text: 'jantar às 20h' });
    assert.equal(sent.status, 201);
    assert.deepEqual(sent.body.devices.sort(), [`${beto}@s.whatsapp.net`, `${caio}@s.whatsapp.net`]);
    for (const number of [beto, caio]) {
      const got = (await call('GET', `/accounts/${number}/messages/received`)).body as ReceivedMessage[];
      assert.deepEqual(got.map((m) => [m.text, m.group, m.type]), [['jantar às 20h', created.body.jid, 'skmsg']]);
    }
    const answer = await call('POST', `/accounts/${caio}/groups/${jid}/messages`, { text: 'combinado' });
    assert.equal((await call('GET', `/accounts/${ana}/messages/received`)).body.find((m: ReceivedMessage) => m.id === answer.body.id)?.text, 'combinado');
    assert.equal((await call('GET', `/accounts/${ana}/messages/sent`)).body.find((m: SentMessage) => m.id === sent.body.id).receipts.length, 2);
    const outsider = await call('POST', '/accounts', { number: '5511987655104' });
    const notMember = await call('POST', `/accounts/${outsider.body.number}/groups/${jid}/messages`, { text: 'oi' });
    assert.deepEqual([notMember.status, notMember.body.error.code], [403, 'not_a_member']);
    assert.equal((await call('GET', '/groups/120363000000000000@g.us')).body.error.code, 'group_not_found');
    // The admin resets the invite link; a member who is not an admin may not.
    const notAdmin = await call('POST', `/accounts/${beto}/groups/${jid}/invite`);
    assert.deepEqual([notAdmin.status, notAdmin.body.error.code], [403, 'not_an_admin']);
    const renewed = await call('POST', `/accounts/${ana}/groups/${jid}/invite`);
    assert.equal(renewed.status, 200);
    assert.notEqual(renewed.body.inviteCode, created.body.inviteCode);
    assert.equal((await call('GET', `/groups/${jid}`)).body.inviteCode, renewed.body.inviteCode);
  });

  it('a phone sends a file over HTTP and another phone\'s decrypted copy is readable over HTTP', async () => {
    const [from, to] = ['5511987655201', '5511987655202'];
    for (const number of [from, to]) await call('POST', '/accounts', { number });
    const data = Buffer.from('%PDF-1.4 boleto').toString('base64');
    assert.equal(refusal(await call('POST', `/accounts/${from}/media`, { to, kind: 'gif', data, mimetype: 'image/gif' })), 'validation_failed:invalid_media body.kind');
    assert.equal((await call('POST', `/accounts/${from}/media`, { to, kind: 'document', data: '%%%', mimetype: 'application/pdf' })).status, 400);
    const sent = await call('POST', `/accounts/${from}/media`, { to, kind: 'document', data, mimetype: 'application/pdf', fileName: 'boleto.pdf' });
    assert.equal(sent.status, 201);
    const file = await call('GET', `/accounts/${to}/messages/received/${sent.body.id}/media`);
    assert.deepEqual([file.body.kind, file.body.fileName, file.body.data], ['document', 'boleto.pdf', data]);
    assert.equal((await call('GET', `/accounts/${to}/messages/received/nope/media`)).body.error.code, 'media_not_found');
  });

  it('a phone changes its app state over HTTP; bad changes are refused and change nothing', async () => {
    const number = '5511987655301';
    await call('POST', '/accounts', { number });
    const bad = await call('POST', `/accounts/${number}/app-state`, { changes: [{ kind: 'contact', jid: '5511900000003@s.whatsapp.net', fullName: 'Ok' }, { kind: 'mute', jid: 5 }] });
    assert.deepEqual([bad.status, refusal(bad)], [400, 'validation_failed:invalid_change body.changes[1].jid']);
    const done = await call('POST', `/accounts/${number}/app-state`, { changes: [{ kind: 'contact', jid: '5511900000003@s.whatsapp.net', fullName: 'Ok' }] });
    // The refused request applied nothing: the contact is version 1 of its collection.
    assert.deepEqual(done.body, [{ collection: 'critical_unblock_low', version: 1 }]);
    const shown = await call('GET', `/accounts/${number}/app-state`);
    assert.deepEqual(shown.body, { chats: {}, contacts: { '5511900000003@s.whatsapp.net': { fullName: 'Ok' } }, labels: [] });
  });
});
