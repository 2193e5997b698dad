import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InstanceClient, Operations } from '@parley/client';
import { type ChannelEvent, type ChannelEventOf } from '@parley/core';
import { buildVcard } from '@parley/whatsapp-proto';
import { dataUri, MediaServer, SAMPLES, sha256Hex } from '../support/media-server.js';
import { withPostgres } from '../support/storages.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  assertHubSignature, assertStandardSignature, at, closeReceivers, eventIdOf, expectedNative, startReceivers, statsOf, URL_KINDS, urlsFor,
  waitUntilDelivered, type Receivers, type UrlKind,
} from '../support/webhook-receivers.js';

const PUBLIC_URL = 'https://parley.test';
const NUMBERS = { alice: '5511971000001', bob: '5511971000002', carol: '5511971000003', dave: '5511971000004', erin: '5511971000005' } as const;
type Name = keyof typeof NUMBERS;
const jid = (name: Name) => `${NUMBERS[name]}@s.whatsapp.net`;

interface Instance {
  name: Name;
  id: string;
  key: string;
  secret: string;
  settings: WebhookSettings;
}

type WebhookSettings = Operations['updateWebhookSettings']['body'];

/** The URL field an event kind is routed to (spec 2.2 / docs/webhooks.md), written out independently of the engine. */
function urlKindOf(event: ChannelEvent): UrlKind {
  switch (event.type) {
    case 'message':
      return event.message.fromMe ? 'webhookMessageFromMe' : 'webhookMessage';
    case 'group.participants':
    case 'group.update':
      return 'webhookGroup';
    case 'connection':
      return 'webhookConnection';
    case 'qrcode':
      return 'webhookQrCode';
    default:
      return 'webhookMessage';
  }
}

/** Spec 6.3 field of each kind the meta format carries; the others are native-only. */
const META_FIELDS: Partial<Record<ChannelEvent['type'], string>> = {
  message: 'messages', 'message.status': 'messages', presence: 'presence', connection: 'connection', qrcode: 'qrcode', call: 'call',
  'group.participants': 'groups', 'group.update': 'groups', health: 'health',
};

/**
 * Spec 2.2 / 6 end to end on the real server with SQLite: every event kind the sandbox produces reaches
 * the URL its kind is routed to, in the instance's format, signed with the instance's secret; the
 * switches and the number filter hold back exactly what they should; the statistics match the receivers.
 */
// Every event kind on SQLite, and on PostgreSQL: the delivery queue and the event log as each stores them.
for (const storage of withPostgres('webhooks: every event kind', ['sqlite'] as const)) describe(`webhooks: every event kind, end to end (${storage})`, () => {
  let t: TestServer;
  let media: MediaServer;
  let receivers: Receivers;
  const instances = {} as Record<Name, Instance>;
  /** Event ids of alice processed while her webhooks were switched off. */
  const aliceOffIds = new Set<string>();
  const sent: Record<string, string> = {};

  const eventsOf = (name: Name) => t.events.filter((e) => e.instance === instances[name].id);
  /** Every request the receivers got for one instance, with the URL field it came to. */
  const deliveriesOf = (name: Name) => URL_KINDS.flatMap((kind) => at(receivers[kind], name).map((request) => ({ kind, request })));
  const api = (name: Name): InstanceClient => t.client(instances[name].key);
  /** The id of the message a send answered, asserting the answer is a 200. */
  const sentId = (res: { status: number; data: { key: { id: string } } }) => {
    assert.equal(res.status, 200, JSON.stringify(res));
    return res.data.key.id;
  };
  const messageEvent = (name: Name, id: string) => t.waitFor(
    () => eventsOf(name).find((e): e is ChannelEventOf<'message'> => e.type === 'message' && e.message.id === id), 5000, `message ${id} on ${name}`,
  );

  before(async () => {
    t = await startTestServer({ storage, config: { publicUrl: PUBLIC_URL } });
    media = await MediaServer.start();
    receivers = await startReceivers();
    const formats: Record<Name, WebhookSettings> = {
      alice: { webhookFormat: 'native' },
      bob: { webhookFormat: 'meta' },
      carol: { webhookFormat: 'both' },
      dave: { webhookFormat: 'native', allowWebhook: false },
      erin: { webhookFormat: 'native', allowNumber: `+${NUMBERS.bob}` },
    };
    for (const name of Object.keys(NUMBERS) as Name[]) {
      const created = await t.createInstance({ channel: 'sandbox', name, number: NUMBERS[name] });
      const settings = { allowWebhook: true, allowNumber: 'all', ...formats[name], ...urlsFor(receivers, name) };
      const put = await t.client(created.key).call('updateWebhookSettings', { body: settings });
      assert.deepEqual(put, { status: 200, data: { ...settings, webhookHistory: '' } });
      instances[name] = { name, id: created.id, key: created.key, secret: created.webhookSecret, settings };
    }
    // qrcode, then connection open, for every instance.
    for (const name of Object.keys(NUMBERS) as Name[]) {
      assert.equal((await api(name).call('connectInstance')).status, 200);
      assert.equal((await api(name).call('sandbox_post_key_scan')).status, 200);
    }
    await t.settle();

    // Alice writes to bob (her own copy goes to webhookMessageFromMe); bob answers with every message type.
    const text = (from: Name, to: string, body: string) => api(from).call('sendText', { body: { to, text: body } });
    sent.hello = sentId(await text('alice', NUMBERS.bob, 'hello bob'));
    await messageEvent('bob', sent.hello);
    const bob = api('bob');
    sent.text = sentId(await text('bob', NUMBERS.alice, 'hi alice'));
    sent.image = sentId(await bob.call('sendBase64Image', { body: { to: NUMBERS.alice, base64: dataUri('image/png', SAMPLES.png), caption: 'a cat' } }));
    sent.audio = sentId(await bob.call('sendBase64Audio', { body: { to: NUMBERS.alice, base64: dataUri('audio/ogg', SAMPLES.ogg) } }));
    sent.document = sentId(await bob.call('sendBase64Document', {
      body: { to: NUMBERS.alice, base64: dataUri('application/pdf', SAMPLES.pdf), mimetype: 'application/pdf', fileName: 'terms.pdf' },
    }));
    sent.video = sentId(await bob.call('sendVideo', { body: { to: NUMBERS.alice, url: media.serve('/v.mp4', { body: SAMPLES.mp4, type: 'video/mp4' }) } }));
    sent.sticker = sentId(await bob.call('sendSticker', { body: { to: NUMBERS.alice, url: media.serve('/s.webp', { body: SAMPLES.webp, type: 'image/webp' }) } }));
    sent.location = sentId(await bob.call('sendLocation', {
      body: { to: NUMBERS.alice, location: { latitude: -23.5613, longitude: -46.6565, address: 'Av. Paulista, 1578' } },
    }));
    sent.contacts = sentId(await bob.call('sendContacts', {
      body: { to: NUMBERS.alice, displayName: 'Team', contacts: [{ fullName: 'Ana', phoneNumber: '5511988887777' }] },
    }));
    sent.reply = sentId(await bob.call('replyText', { params: { messageId: sent.hello }, body: { to: NUMBERS.alice, text: 'a reply' } }));
    sent.reaction = sentId(await bob.call('sendReaction', { body: { msgId: sent.hello, text: '👍' } }));
    await messageEvent('alice', sent.reaction);
    // Alice reads the chat: bob gets read receipts; bob types and calls.
    const markRead = { action: 'markRead', value: true } as const;
    assert.equal((await api('alice').call('updateChat', { params: { jid: NUMBERS.bob }, query: markRead })).status, 200);
    assert.equal((await bob.call('updateChat', { params: { jid: NUMBERS.alice }, query: markRead })).status, 200);
    assert.equal((await bob.call('sendPresence', { body: { to: NUMBERS.alice, status: 'composing' } })).status, 200);
    assert.equal((await bob.call('placeCall', { body: { to: NUMBERS.alice } })).status, 200);
    await t.waitFor(() => eventsOf('alice').some((e) => e.type === 'call'), 5000, 'the call offer');

    // A group: participants and update events on every member, then a group message.
    const group = await api('alice').call('createGroup', { body: { name: 'Team', participants: [NUMBERS.bob, NUMBERS.carol, NUMBERS.dave] } });
    assert.equal(group.status, 200);
    sent.groupJid = group.data.id;
    await t.waitFor(() => eventsOf('dave').some((e) => e.type === 'group.update'), 5000, 'the group on dave');
    sent.group = sentId(await text('bob', sent.groupJid, 'hello team'));
    for (const name of ['alice', 'carol', 'dave'] as const) await messageEvent(name, sent.group);

    // Erin forwards only what concerns bob.
    sent.toErinFromBob = sentId(await text('bob', NUMBERS.erin, 'from bob'));
    sent.toErinFromCarol = sentId(await text('carol', NUMBERS.erin, 'from carol'));
    assert.equal((await api('carol').call('sendPresence', { body: { to: NUMBERS.erin, status: 'recording' } })).status, 200);
    await messageEvent('erin', sent.toErinFromCarol);

    // Alice switches webhooks off, gets a message, and on again.
    await t.settle();
    const off = await api('alice').call('updateWebhookSettings', { body: { allowWebhook: false } });
    assert.equal(off.data.allowWebhook, false);
    const mark = t.events.length;
    sent.whileOff = sentId(await text('bob', NUMBERS.alice, 'while off'));
    await messageEvent('alice', sent.whileOff);
    await t.settle();
    for (const e of t.events.slice(mark)) if (e.instance === instances.alice.id) aliceOffIds.add(e.id);
    assert.equal((await api('alice').call('updateWebhookSettings', { body: { allowWebhook: true } })).data.allowWebhook, true);
    sent.backOn = sentId(await text('bob', NUMBERS.alice, 'back on'));
    await messageEvent('alice', sent.backOn);

    // Connection close: a restart (close 515 then open) and a logout (close 401).
    assert.equal((await api('alice').call('restartInstance')).status, 200);
    assert.equal((await bob.call('logoutInstance')).status, 200);
    await waitUntilDelivered(t, Object.values(instances).map((i) => i.key));
  });
  after(async () => {
    await t?.stop();
    await media?.stop();
    if (receivers) await closeReceivers(receivers);
  });

  it('drives every event kind the sandbox produces', () => {
    const kinds = new Set(t.events.map((e) => e.type));
    for (const kind of ['qrcode', 'connection', 'message', 'message.status', 'presence', 'call', 'group.participants', 'group.update']) {
      assert.ok(kinds.has(kind as ChannelEvent['type']), `a ${kind} event`);
    }
    const statuses = new Set(t.events.filter((e): e is ChannelEventOf<'message.status'> => e.type === 'message.status').map((e) => e.status));
    assert.deepEqual([...statuses].sort(), ['delivered', 'read', 'sent']);
    const closes = t.events.filter((e): e is ChannelEventOf<'connection'> => e.type === 'connection' && e.status === 'close');
    assert.deepEqual(closes.map((e) => [e.instance, e.code]), [[instances.alice.id, 515], [instances.bob.id, 401]]);
  });

  it('native: every event of alice arrives once, at the URL of its kind, in event order, with the exact body', () => {
    const expected = eventsOf('alice').filter((e) => !aliceOffIds.has(e.id));
    for (const kind of URL_KINDS) {
      const got = at(receivers[kind], 'alice');
      const want = expected.filter((e) => urlKindOf(e) === kind);
      assert.ok(want.length > 0, `alice has events for ${kind}`);
      assert.deepEqual(got.map((r) => r.json), want.map((e) => expectedNative(e, PUBLIC_URL)), `bodies at ${kind}`);
      assert.deepEqual(got.map(eventIdOf), want.map((e) => e.id));
      for (const request of got) {
        assert.equal(request.method, 'POST');
        assert.equal(request.headers['content-type'], 'application/json');
        assert.equal(request.headers['user-agent'], 'Parley-Webhooks/0.1');
        assert.equal(request.headers['x-hub-signature-256'], undefined);
        assertStandardSignature(request, instances.alice.secret);
      }
    }
  });

  it('native: each message type reaches alice with its exact content', () => {
    const content = (id: string) => {
      const request = at(receivers.webhookMessage, 'alice').find((r) => (r.json as any).type === 'message' && (r.json as any).data.message.id === id);
      assert.ok(request, `message ${id} delivered`);
      return (request.json as any).data.message;
    };
    const mediaUrl = (id: string) => `${PUBLIC_URL}/{key}/message/${id}/media`;
    assert.deepEqual(content(sent.text!).content, { type: 'text', body: 'hi alice' });
    assert.deepEqual(content(sent.image!).content, {
      type: 'image', media: { id: sent.image, mimeType: 'image/png', sha256: sha256Hex(SAMPLES.png), caption: 'a cat', url: mediaUrl(sent.image!) },
    });
    assert.deepEqual(content(sent.audio!).content, {
      type: 'audio', voice: true, media: { id: sent.audio, mimeType: 'audio/ogg', sha256: sha256Hex(SAMPLES.ogg), url: mediaUrl(sent.audio!) },
    });
    assert.deepEqual(content(sent.document!).content, {
      type: 'document', filename: 'terms.pdf', media: { id: sent.document, mimeType: 'application/pdf', sha256: sha256Hex(SAMPLES.pdf), url: mediaUrl(sent.document!) },
    });
    assert.deepEqual(content(sent.video!).content, {
      type: 'video', media: { id: sent.video, mimeType: 'video/mp4', sha256: sha256Hex(SAMPLES.mp4), url: mediaUrl(sent.video!) },
    });
    assert.deepEqual(content(sent.sticker!).content, {
      type: 'sticker', animated: false, media: { id: sent.sticker, mimeType: 'image/webp', sha256: sha256Hex(SAMPLES.webp), url: mediaUrl(sent.sticker!) },
    });
    assert.deepEqual(content(sent.location!).content, { type: 'location', latitude: -23.5613, longitude: -46.6565, address: 'Av. Paulista, 1578' });
    assert.deepEqual(content(sent.contacts!).content, {
      type: 'contacts', contacts: [{ formattedName: 'Ana', vcard: buildVcard({ fullName: 'Ana', phoneNumber: '5511988887777' }) }],
    });
    assert.deepEqual(content(sent.reaction!).content, { type: 'reaction', messageId: sent.hello, emoji: '👍' });
    const reply = content(sent.reply!);
    assert.deepEqual({ content: reply.content, context: reply.context }, { content: { type: 'text', body: 'a reply' }, context: { from: NUMBERS.alice, id: sent.hello } });
    const inGroup = content(sent.group!);
    assert.deepEqual(
      { chatJid: inGroup.chatJid, from: inGroup.from, chatType: inGroup.chatType, groupId: inGroup.groupId, content: inGroup.content },
      { chatJid: sent.groupJid, from: NUMBERS.bob, chatType: 'group', groupId: sent.groupJid, content: { type: 'text', body: 'hello team' } },
    );
  });

  it('message from me goes to webhookMessageFromMe; presence, call and statuses to webhookMessage; groups to webhookGroup', () => {
    const fromMe = at(receivers.webhookMessageFromMe, 'alice').map((r) => (r.json as any).data.message);
    assert.ok(fromMe.some((m) => m.id === sent.hello && m.fromMe === true && m.content.body === 'hello bob'));
    assert.ok(fromMe.every((m) => m.fromMe === true));
    const types = (kind: UrlKind) => new Set(at(receivers[kind], 'alice').map((r) => (r.json as any).type));
    assert.deepEqual([...types('webhookMessageFromMe')], ['message']);
    assert.deepEqual([...types('webhookGroup')].sort(), ['group.participants', 'group.update']);
    assert.deepEqual([...types('webhookConnection')], ['connection']);
    assert.deepEqual([...types('webhookQrCode')], ['qrcode']);
    for (const kind of ['message', 'message.status', 'presence', 'call']) assert.ok(types('webhookMessage').has(kind), `${kind} at webhookMessage`);
    const call = at(receivers.webhookMessage, 'alice').map((r) => r.json as any).find((b) => b.type === 'call');
    const { callId, timestamp, ...offer } = call.data;
    assert.match(callId, /^[0-9A-F]{32}$/);
    assert.ok(Number.isInteger(timestamp));
    assert.deepEqual(offer, { from: NUMBERS.bob, fromJid: jid('bob'), status: 'offer', isVideo: false, isGroup: false });
    const presence = at(receivers.webhookMessage, 'alice').map((r) => r.json as any).find((b) => b.type === 'presence');
    assert.deepEqual(presence.data, { jid: jid('bob'), status: 'composing' });
    const statuses = at(receivers.webhookMessage, 'alice').map((r) => r.json as any).filter((b) => b.type === 'message.status' && b.data.messageId === sent.hello);
    assert.deepEqual(statuses.map((s) => s.data.status), ['sent', 'delivered', 'read']);
    const qr = at(receivers.webhookQrCode, 'alice')[0]!.json as any;
    assert.match(qr.data.qr, /^2@/);
    assert.match(qr.data.image, /^data:image\/png;base64,/);
  });

  it('meta: bob gets spec 6.3 kinds only, as Meta-shaped envelopes signed both ways', () => {
    const expected = eventsOf('bob').filter((e) => META_FIELDS[e.type] !== undefined);
    assert.ok(eventsOf('bob').some((e) => META_FIELDS[e.type] === undefined), 'bob also had native-only events');
    const entryId = `wa_${Buffer.from(instances.bob.id).toString('base64url')}`;
    for (const kind of URL_KINDS) {
      const got = at(receivers[kind], 'bob');
      const want = expected.filter((e) => urlKindOf(e) === kind);
      assert.deepEqual(got.map(eventIdOf), want.map((e) => e.id), `events at ${kind}`);
      for (const [i, request] of got.entries()) {
        assertStandardSignature(request, instances.bob.secret);
        assertHubSignature(request, instances.bob.secret);
        const body = request.json as any;
        const event = want[i]!;
        assert.deepEqual(Object.keys(body), ['object', 'provider', 'instance', 'official', 'entry']);
        assert.deepEqual([body.object, body.provider, body.instance, body.official], ['parley', 'whatsapp', instances.bob.id, false]);
        assert.equal(body.entry.length, 1);
        assert.equal(body.entry[0].id, entryId);
        assert.equal(body.entry[0].changes[0].field, META_FIELDS[event.type]);
        const display = event.type === 'qrcode' || (event.type === 'connection' && event.status === 'close' && event.code === 401) ? '' : NUMBERS.bob;
        assert.deepEqual(body.entry[0].changes[0].value.metadata, { display_phone_number: display, phone_number_id: instances.bob.id });
      }
    }
    const value = (kind: UrlKind, match: (v: any) => boolean) => at(receivers[kind], 'bob').map((r) => (r.json as any).entry[0].changes[0].value).find(match);
    const hello = value('webhookMessage', (v) => v.messages?.[0]?.id === sent.hello);
    assert.deepEqual({ contacts: hello.contacts, messages: hello.messages }, {
      contacts: [{ profile: { name: 'alice' }, wa_id: NUMBERS.alice }],
      messages: [{
        from: NUMBERS.alice, id: sent.hello, timestamp: hello.messages[0].timestamp, type: 'text', chat_type: 'individual', from_me: false,
        text: { body: 'hello bob' },
      }],
    });
    assert.match(hello.messages[0].timestamp, /^\d{10}$/);
    const read = value('webhookMessage', (v) => v.statuses?.[0]?.id === sent.text && v.statuses[0].status === 'read');
    assert.deepEqual(read.statuses, [{ id: sent.text, status: 'read', timestamp: read.statuses[0].timestamp, recipient_id: NUMBERS.alice, conversation: null, pricing: null }]);
    const fromMe = value('webhookMessageFromMe', (v) => v.messages?.[0]?.id === sent.text);
    assert.equal(fromMe.messages[0].from_me, true);
    const open = value('webhookConnection', (v) => v.connection?.status === 'open');
    assert.deepEqual(open.connection, { status: 'open', code: 200 });
  });

  it('both: carol gets each event in native then meta at the same URL, each with its own webhook-id', () => {
    const events = eventsOf('carol');
    for (const kind of URL_KINDS) {
      const got = at(receivers[kind], 'carol');
      const want = events.filter((e) => urlKindOf(e) === kind).flatMap((e) => (META_FIELDS[e.type] ? [[e.id, 'native'], [e.id, 'meta']] : [[e.id, 'native']]));
      assert.deepEqual(got.map((r) => [eventIdOf(r), 'object' in (r.json as object) ? 'meta' : 'native']), want, `deliveries at ${kind}`);
      assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, got.length);
      for (const request of got) {
        assertStandardSignature(request, instances.carol.secret);
        if ('object' in (request.json as object)) assertHubSignature(request, instances.carol.secret);
        else assert.deepEqual(request.json, expectedNative(events.find((e) => e.id === eventIdOf(request))!, PUBLIC_URL));
      }
    }
    assert.ok(at(receivers.webhookGroup, 'carol').length >= 2);
  });

  it('allowWebhook false delivers nothing, and nothing is queued', async () => {
    assert.ok(eventsOf('dave').some((e) => e.type === 'message' && e.message.id === sent.group), 'dave had events');
    assert.deepEqual(deliveriesOf('dave'), []);
    assert.deepEqual(await statsOf(t, instances.dave.key), { totalSent: 0, totalFailed: 0, totalPending: 0, avgResponseTime: 0 });
    assert.ok(aliceOffIds.size > 0);
    const delivered = new Set(deliveriesOf('alice').map(({ request }) => eventIdOf(request)));
    for (const id of aliceOffIds) assert.equal(delivered.has(id), false, `event ${id} of the off window`);
    assert.ok(at(receivers.webhookMessage, 'alice').some((r) => (r.json as any).data.message?.id === sent.backOn));
  });

  it('allowNumber forwards only events about the listed number, and instance-level events', () => {
    const about = (e: ChannelEvent) => e.type === 'connection' || e.type === 'qrcode' || JSON.stringify(e).includes(NUMBERS.bob);
    const events = eventsOf('erin');
    assert.ok(events.some((e) => !about(e)), 'erin had events about others');
    const want = events.filter(about);
    const got = deliveriesOf('erin');
    assert.deepEqual(new Set(got.map(({ request }) => eventIdOf(request))), new Set(want.map((e) => e.id)));
    assert.equal(got.length, want.length);
    const messages = got.filter(({ request }) => (request.json as any).type === 'message').map(({ request }) => (request.json as any).data.message.id);
    assert.deepEqual(messages, [sent.toErinFromBob]);
    assert.equal(got.some(({ request }) => (request.json as any).type === 'presence'), false);
  });

  it('the statistics match exactly what the receivers got', async () => {
    for (const name of Object.keys(NUMBERS) as Name[]) {
      const stats = await statsOf(t, instances[name].key);
      const got = deliveriesOf(name).map(({ request }) => request);
      assert.deepEqual({ ...stats, avgResponseTime: 0 }, { totalSent: got.length, totalFailed: 0, totalPending: 0, avgResponseTime: 0 }, name);
      assert.ok(Number.isInteger(stats.avgResponseTime) && stats.avgResponseTime >= 0);
      assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, got.length, `no duplicates for ${name}`);
      const dead = await api(name).call('webhookDeadLetters');
      assert.deepEqual(dead, { status: 200, data: [], total: 0, limit: 50, offset: 0 });
    }
  });

});
