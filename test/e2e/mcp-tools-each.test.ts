import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SAMPLES } from '../support/media-server.js';
import { MessagingPair } from '../support/messaging.js';
import { deliverText, phone, type Phone } from '../support/conversation.js';
import { connectMcp, toolJson, type McpTestClient } from '../support/mcp-client.js';

/** Every tool of the MCP server, called through the SDK's client against sandbox instances. */
describe('MCP: each tool', () => {
  let p: MessagingPair;
  let carol: Phone;
  let mcp: McpTestClient;
  const call = async (name: string, args: Record<string, unknown> = {}) => toolJson(await mcp.client.callTool({ name, arguments: args }));

  before(async () => {
    p = await MessagingPair.start({}, ['5511900000401', '5511900000402']);
    carol = await phone(p.t, 'carol', '5511900000403');
    mcp = await connectMcp(p.t, p.alice.key);
  });
  after(async () => {
    await mcp?.close();
    await p?.stop();
  });

  it('sends media by URL, a location and a poll, each arriving at the recipient', async () => {
    const sent = [
      await call('send_image', { to: p.bob.number, url: p.media.serve('/a.png', { body: SAMPLES.png, type: 'image/png' }), caption: 'a cat' }),
      await call('send_video', { to: p.bob.number, url: p.media.serve('/a.mp4', { body: SAMPLES.mp4, type: 'video/mp4' }) }),
      await call('send_audio', { to: p.bob.number, url: p.media.serve('/a.ogg', { body: SAMPLES.ogg, type: 'audio/ogg' }) }),
      await call('send_document', { to: p.bob.number, url: p.media.serve('/a.pdf', { body: SAMPLES.pdf, type: 'application/pdf' }), fileName: 'a.pdf', mimetype: 'application/pdf' }),
      await call('send_location', { to: p.bob.number, location: { latitude: -23.5613, longitude: -46.6565 } }),
      await call('send_poll', { to: p.bob.number, name: 'Lunch?', values: ['Yes', 'No'], selectableCount: 1 }),
    ];
    const ids = sent.map((s) => s.data.key.id as string);
    await p.t.waitFor(async () => {
      const res = await p.t.client(p.bob.key).call('listChatMessages', { params: { jid: p.alice.number }, query: { limit: 100 } });
      return ids.every((id) => res.data.some((m) => m.key.id === id));
    }, 10000, 'every send to reach bob');
    assert.ok(sent[0].data.message.imageMessage);
    assert.ok(sent[4].data.message.locationMessage);
  });

  it('replies to a message with media by URL and a location, each arriving quoted', async () => {
    const quoted = await deliverText(p.t, p.bob, p.alice, 'send me the files');
    const reply = (type: string, args: Record<string, unknown>) => call(`reply_${type}`, { messageId: quoted, to: p.bob.number, ...args });
    const sent = [
      await reply('image', { url: p.media.serve('/r.png', { body: SAMPLES.png, type: 'image/png' }), caption: 'here' }),
      await reply('video', { url: p.media.serve('/r.mp4', { body: SAMPLES.mp4, type: 'video/mp4' }) }),
      await reply('audio', { url: p.media.serve('/r.ogg', { body: SAMPLES.ogg, type: 'audio/ogg' }) }),
      await reply('document', { url: p.media.serve('/r.pdf', { body: SAMPLES.pdf, type: 'application/pdf' }), fileName: 'r.pdf', mimetype: 'application/pdf' }),
      await reply('location', { location: { latitude: -22.9519, longitude: -43.2105 } }),
    ];
    const ids = sent.map((s) => s.data.key.id as string);
    const members = ['imageMessage', 'videoMessage', 'audioMessage', 'documentMessage', 'locationMessage'];
    await p.t.waitFor(async () => {
      const res = await p.t.client(p.bob.key).call('listChatMessages', { params: { jid: p.alice.number }, query: { limit: 100 } });
      return ids.every((id) => res.data.some((m) => m.key.id === id));
    }, 10000, 'every reply to reach bob');
    const received = (await p.t.client(p.bob.key).call('listChatMessages', { params: { jid: p.alice.number }, query: { limit: 100 } })).data;
    ids.forEach((id, i) => {
      const message = received.find((m) => m.key.id === id)!.message as Record<string, { contextInfo?: { stanzaId?: string } }>;
      assert.equal(message[members[i]!]?.contextInfo?.stanzaId, quoted, `${members[i]} quotes the message`);
    });
  });

  it('shows presence, checks a number, looks up and blocks a contact', async () => {
    assert.match((await call('send_presence', { to: p.bob.number, status: 'composing' })).message, /composing/);
    assert.equal((await call('check_number', { number: p.bob.number })).registered, true);
    await deliverText(p.t, p.bob, p.alice, 'hi');
    assert.equal((await call('get_contact', { number: p.bob.number })).data.id, p.bob.jid);
    assert.equal((await call('block_contact', { number: carol.number, action: 'block' })).data.blocked, true);
    assert.equal((await call('block_contact', { number: carol.number, action: 'unblock' })).data.blocked, false);
  });

  it('creates a group, lists and gets it, adds and removes a participant', async () => {
    const group = (await call('create_group', { name: 'Agents', participants: [p.bob.number] })).data;
    assert.ok((await call('list_groups')).data.some((g: { id: string }) => g.id === group.id));
    assert.equal((await call('get_group', { groupJid: group.id })).data.subject, 'Agents');
    const added = await call('add_group_participants', { groupJid: group.id, participants: [carol.number] });
    assert.equal(added.data[0].status, '200');
    const removed = await call('remove_group_participants', { groupJid: group.id, participants: [carol.number] });
    assert.equal(removed.data[0].status, '200');
  });

  it('answers the queue, the instance status, and a new instance\'s QR code as an image', async () => {
    const queue = await call('queue_status');
    assert.equal(queue.paused, false);
    assert.ok(Array.isArray(queue.data));
    assert.equal((await call('instance_status')).instance.connection.status, 'open');
    const fresh = await p.t.createInstance({ name: 'unpaired' });
    const other = await connectMcp(p.t, fresh.key);
    try {
      const result = await other.client.callTool({ name: 'connect_instance', arguments: {} });
      const json = toolJson(result);
      assert.equal(json.phoneConnected, false);
      assert.ok(json.qrcode.length > 0);
      const image = (result.content as { type: string; mimeType?: string; data?: string }[]).find((c) => c.type === 'image');
      assert.equal(image?.mimeType, 'image/png');
      assert.equal(`data:image/png;base64,${image!.data}`, json.image);
    } finally {
      await other.close();
    }
  });
});
