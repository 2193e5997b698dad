import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { phone, type Phone } from '../support/conversation.js';
import { handledAfter, sendTexts, textOf } from '../support/event-streams.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { WsClient } from '../support/ws-client.js';

describe('event streams over WebSocket', () => {
  let t: TestServer;
  let alice: Phone;
  let bob: Phone;
  let ws: string;
  before(async () => {
    t = await startTestServer({ storage: 'sqlite', config: { streams: { retentionSeconds: 86_400, heartbeatSeconds: 1, maxPerInstance: 100, maxTotal: 1000, bufferBytes: 262_144 } } });
    alice = await phone(t, 'alice', '5511900000011');
    bob = await phone(t, 'bob', '5511900000012');
    ws = t.url.replace(/^http/, 'ws');
  });
  after(async () => {
    await t.stop();
  });

  it('resumes with ?after= or Last-Event-ID: each missed event once, in order, then live ones', async () => {
    const mark = t.events.at(-1)!.id;
    await sendTexts(t, alice, bob, ['ws one', 'ws two']);
    const viaQuery = new WsClient(`${ws}/${bob.key}/events?after=${mark}`);
    await viaQuery.settled;
    const racing = sendTexts(t, alice, bob, ['ws three']);
    await racing;
    await t.waitFor(() => viaQuery.events.filter((m) => m.event === 'message').length === 3, 5000, 'three messages');
    await t.settle();
    const ids = viaQuery.events.map((m) => m.id!);
    assert.deepEqual(ids, handledAfter(t, bob.id, mark));
    assert.deepEqual(viaQuery.events.filter((m) => m.event === 'message').map((m) => textOf(m.data)), ['ws one', 'ws two', 'ws three']);
    for (const m of viaQuery.events) assert.deepEqual([m.data.id, m.data.type, m.data.instance], [m.id, m.event, bob.id]);
    const lastSeen = ids[1]!;
    viaQuery.ws.close();
    await viaQuery.closed;

    const viaHeader = new WsClient(`${ws}/${bob.key}/events`, { headers: { 'Last-Event-ID': lastSeen } });
    await t.waitFor(() => viaHeader.events.length === handledAfter(t, bob.id, lastSeen).length, 5000, 'the replay');
    assert.deepEqual(viaHeader.events.map((m) => m.id), handledAfter(t, bob.id, lastSeen));
    viaHeader.ws.close();
    await viaHeader.closed;
  });

  it('the admin WebSocket takes the token in Authorization and names each event\'s instance', async () => {
    const admin = new WsClient(`${ws}/admin/events`, { headers: { Authorization: `Bearer ${t.adminToken}` } });
    await admin.settled;
    await sendTexts(t, alice, bob, ['ws admin']);
    await t.waitFor(() => admin.events.some((m) => m.event === 'message' && m.data.name === 'bob'), 5000, 'bob\'s message');
    const received = admin.events.find((m) => m.event === 'message' && m.data.name === 'bob')!;
    assert.deepEqual([received.data.instance, received.data.format, textOf(received.data.payload)], [bob.id, 'native', 'ws admin']);
    admin.ws.close();
    await admin.closed;
  });

  it('refuses before the handshake with the API\'s JSON errors: 401, 404, 400', async () => {
    const cases: [string, Record<string, string>, number, string][] = [
      [`${ws}/admin/events`, {}, 401, 'unauthorized'],
      [`${ws}/admin/events`, { Authorization: 'Bearer wrong-token-wrong-token' }, 401, 'unauthorized'],
      [`${ws}/unknownKeyunknownKeyunknownKey00/events`, {}, 404, 'instance_not_found'],
      [`${ws}/${bob.key}/events?after=bad`, {}, 400, 'validation_failed'],
      [`${ws}/${bob.key}/events?format=xml`, {}, 400, 'validation_failed'],
      [`${ws}/${bob.key}/messages`, {}, 404, 'route_not_found'],
      [`${ws}/%E0%A4%A/events`, {}, 400, 'validation_failed'],
    ];
    for (const [url, headers, status, code] of cases) {
      const client = new WsClient(url, { headers });
      await client.settled;
      assert.deepEqual([client.refused?.status, client.refused?.body.error.code], [status, code], url);
      assert.equal(client.messages.length, 0);
    }
    assert.equal(t.server.context.streams.count(), 0);
  });

  it('pings every heartbeat interval and closes a peer that stops answering pongs', async () => {
    const live = new WsClient(`${ws}/${bob.key}/events`);
    const mute = new WsClient(`${ws}/${bob.key}/events`, { autoPong: false });
    await Promise.all([live.settled, mute.settled]);
    await mute.closed;
    assert.equal(mute.closeCode, 1006, 'terminated without a close frame');
    assert.ok(live.pings.length >= 2, `live client pinged (${live.pings.length})`);
    assert.equal(live.ws.readyState, WebSocket.OPEN);
    const metrics = await t.request('GET', '/metrics', undefined, { Authorization: `Bearer ${t.adminToken}` });
    assert.match(metrics.body, /parley_event_stream_drops_total\{reason="dead"\} 1/);
    live.ws.close();
    await live.closed;
  });

  it('cuts off a WebSocket client that stops reading (unread bytes over the limit, or no pong), and keeps serving the others', async () => {
    const mark = t.events.at(-1)!.id;
    const stalled = new WsClient(`${ws}/${bob.key}/events`);
    const reader = new WsClient(`${ws}/${bob.key}/events`);
    await Promise.all([stalled.settled, reader.settled]);
    stalled.ws.pause();
    const big = 'y'.repeat(60_000);
    for (let sent = 0; t.server.context.streams.count(bob.id) === 2; sent++) {
      assert.ok(sent < 400, 'cut off within the bounded loop');
      await sendTexts(t, alice, bob, [`${sent} ${big}`]);
    }
    const text = (await t.request('GET', '/metrics', undefined, { Authorization: `Bearer ${t.adminToken}` })).body as string;
    assert.match(text, /parley_event_stream_drops_total\{reason="(slow|dead)"\} [12]/);
    await t.waitFor(() => reader.events.length === handledAfter(t, bob.id, mark).length, 10_000, 'the reading client to get everything');
    assert.deepEqual(reader.events.map((m) => m.id), handledAfter(t, bob.id, mark));
    stalled.ws.terminate();
    reader.ws.close();
    await reader.closed;
  });

  it('graceful shutdown closes open WebSockets with 1001', async () => {
    const open = new WsClient(`${ws}/${bob.key}/events`);
    await open.settled;
    await t.stop();
    await open.closed;
    assert.equal(open.closeCode, 1001);
  });
});
