import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultInstanceFlags, type ChannelEventPayload, type InboundMessage } from '@parley/core';
import { proto, type WAMessage } from '@whiskeysockets/baileys';
import type { FakeSocket } from '../src/testing/index.js';
import {
  connectOpen, createHarness, eachOpenHarness, GROUP_JID, OWN_JID, OWN_LID, OWN_NUMBER, PEER, PEER_JID, PEER_LID, type Harness,
} from './harness.js';

const T = 1_735_700_000;
const SHA = Buffer.alloc(32, 0xb1);
const SHA_HEX = SHA.toString('hex');
const SHA_B64 = SHA.toString('base64');
const MEDIA_KEY = Buffer.alloc(32, 0x07);

/** A message as Baileys decodes it: plain key and envelope, proto content. */
function waMessage(id: string, content: proto.IMessage, key: Partial<WAMessage['key']> = {}, extra: Partial<WAMessage> = {}): WAMessage {
  return {
    key: { remoteJid: PEER_JID, fromMe: false, id, ...key },
    message: proto.Message.fromObject(content),
    messageTimestamp: T + 1,
    pushName: 'Maria Silva',
    ...extra,
  };
}

/** The inbound message the adapter should emit for a 1:1 message from {@link PEER}. */
function expected(id: string, content: InboundMessage['content'], message: Record<string, unknown>, extra: Partial<InboundMessage> = {}): ChannelEventPayload {
  return {
    type: 'message',
    message: {
      id, chatJid: PEER_JID, from: PEER, fromMe: false, timestamp: T + 1, chatType: 'individual', pushName: 'Maria Silva', content, ...extra,
      record: {
        key: { remoteJid: PEER_JID, fromMe: false, id }, message, messageTimestamp: String(T + 1), status: 'DELIVERY_ACK', provider: 'whatsapp',
        pushName: 'Maria Silva',
      },
    },
  };
}

describe('inbound messages (messages.upsert → message events)', () => {
  let h: Harness;
  let socket: FakeSocket;

  eachOpenHarness((harness, open) => {
    h = harness;
    socket = open;
  });

  async function receive(...messages: WAMessage[]): Promise<ChannelEventPayload[]> {
    socket.emit('messages.upsert', { messages, type: 'notify' });
    await h.settle();
    return h.events;
  }

  it('message-text: a conversation becomes text', async () => {
    const events = await receive(waMessage('3EB0A1B2C3D4E5F60708090A', { conversation: 'Hello from Maria' }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F60708090A', { type: 'text', body: 'Hello from Maria' }, { conversation: 'Hello from Maria' })]);
  });

  it('message-text: an extended text (with link) becomes text too', async () => {
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080901', { extendedTextMessage: { text: 'see https://parley.example', matchedText: 'https://parley.example' } }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080901', { type: 'text', body: 'see https://parley.example' }, {
      extendedTextMessage: { text: 'see https://parley.example', matchedText: 'https://parley.example' },
    })]);
  });

  it('message-image: media id is the message id, sha256 is hex, caption kept', async () => {
    const image = { url: 'https://mmg.whatsapp.net/v/t62.7118-24/1.enc', mimetype: 'image/jpeg', caption: 'Our storefront', fileSha256: SHA, fileLength: 52_301, mediaKey: MEDIA_KEY, directPath: '/v/t62.7118-24/1.enc' };
    const events = await receive(waMessage('3EB0A1B2C3D4E5F60708090B', { imageMessage: image }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F60708090B', {
      type: 'image', media: { id: '3EB0A1B2C3D4E5F60708090B', mimeType: 'image/jpeg', sha256: SHA_HEX, caption: 'Our storefront' },
    }, {
      imageMessage: { ...image, fileSha256: SHA_B64, fileLength: '52301', mediaKey: MEDIA_KEY.toString('base64') },
    })]);
  });

  it('message-audio: a voice note (ptt) has voice true', async () => {
    const events = await receive(waMessage('3EB0A1B2C3D4E5F60708090C', { audioMessage: { mimetype: 'audio/ogg; codecs=opus', ptt: true, seconds: 4, fileSha256: SHA } }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F60708090C', {
      type: 'audio', media: { id: '3EB0A1B2C3D4E5F60708090C', mimeType: 'audio/ogg; codecs=opus', sha256: SHA_HEX }, voice: true,
    }, { audioMessage: { mimetype: 'audio/ogg; codecs=opus', ptt: true, seconds: 4, fileSha256: SHA_B64 } })]);
  });

  it('message-audio: a plain audio file has voice false', async () => {
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080902', { audioMessage: { mimetype: 'audio/mpeg', fileSha256: SHA } }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080902', {
      type: 'audio', media: { id: '3EB0A1B2C3D4E5F607080902', mimeType: 'audio/mpeg', sha256: SHA_HEX }, voice: false,
    }, { audioMessage: { mimetype: 'audio/mpeg', fileSha256: SHA_B64 } })]);
  });

  it('message-video: video with caption', async () => {
    const events = await receive(waMessage('3EB0A1B2C3D4E5F60708090D', { videoMessage: { mimetype: 'video/mp4', caption: 'Unboxing', fileSha256: SHA } }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F60708090D', {
      type: 'video', media: { id: '3EB0A1B2C3D4E5F60708090D', mimeType: 'video/mp4', sha256: SHA_HEX, caption: 'Unboxing' },
    }, { videoMessage: { mimetype: 'video/mp4', caption: 'Unboxing', fileSha256: SHA_B64 } })]);
  });

  it('message-document: a captioned document is unwrapped from documentWithCaptionMessage', async () => {
    const doc = { mimetype: 'application/pdf', fileName: 'invoice-2025-01.pdf', caption: 'Invoice attached', fileSha256: SHA };
    const events = await receive(waMessage('3EB0A1B2C3D4E5F60708090E', { documentWithCaptionMessage: { message: { documentMessage: doc } } }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F60708090E', {
      type: 'document', media: { id: '3EB0A1B2C3D4E5F60708090E', mimeType: 'application/pdf', sha256: SHA_HEX, caption: 'Invoice attached' },
      filename: 'invoice-2025-01.pdf',
    }, { documentMessage: { ...doc, fileSha256: SHA_B64 } })]);
  });

  it('message-sticker: animated flag', async () => {
    const events = await receive(waMessage('3EB0A1B2C3D4E5F60708090F', { stickerMessage: { mimetype: 'image/webp', isAnimated: true, fileSha256: SHA } }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F60708090F', {
      type: 'sticker', media: { id: '3EB0A1B2C3D4E5F60708090F', mimeType: 'image/webp', sha256: SHA_HEX }, animated: true,
    }, { stickerMessage: { mimetype: 'image/webp', isAnimated: true, fileSha256: SHA_B64 } })]);
  });

  it('message-location: coordinates, name and address', async () => {
    const loc = { degreesLatitude: -23.561414, degreesLongitude: -46.655881, name: 'Parley HQ', address: 'Av. Paulista, 1000, São Paulo' };
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080910', { locationMessage: loc }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080910', {
      type: 'location', latitude: -23.561414, longitude: -46.655881, name: 'Parley HQ', address: 'Av. Paulista, 1000, São Paulo',
    }, { locationMessage: loc })]);
  });

  it('message-contacts: every card with its vCard', async () => {
    const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:João Pereira\nTEL;type=CELL;waid=5511977776666:+55 11 97777-6666\nEND:VCARD';
    const vcard2 = 'BEGIN:VCARD\nVERSION:3.0\nFN:Ana\nTEL;type=CELL;waid=5511966661111:+55 11 96666-1111\nEND:VCARD';
    const content = { contactsArrayMessage: { displayName: '2 contacts', contacts: [{ displayName: 'João Pereira', vcard }, { displayName: 'Ana', vcard: vcard2 }] } };
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080911', content));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080911', {
      type: 'contacts', contacts: [{ formattedName: 'João Pereira', vcard }, { formattedName: 'Ana', vcard: vcard2 }],
    }, content)]);
  });

  it('message-reaction: emoji and the id of the message reacted to', async () => {
    const reaction = { key: { remoteJid: PEER_JID, fromMe: true, id: '3EB0A1B2C3D4E5F60708090A' }, text: '👍', senderTimestampMs: 1_735_700_009_000 };
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080912', { reactionMessage: reaction }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080912', { type: 'reaction', messageId: '3EB0A1B2C3D4E5F60708090A', emoji: '👍' }, {
      reactionMessage: { ...reaction, senderTimestampMs: '1735700009000' },
    })]);
  });

  it('message-reaction-removed: an empty reaction text has no emoji', async () => {
    const reaction = { key: { remoteJid: PEER_JID, fromMe: true, id: '3EB0A1B2C3D4E5F60708090A' }, text: '' };
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080913', { reactionMessage: reaction }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080913', { type: 'reaction', messageId: '3EB0A1B2C3D4E5F60708090A' }, {
      reactionMessage: reaction,
    })]);
  });

  it('message-button: a buttons response carries text and payload', async () => {
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080914', {
      buttonsResponseMessage: { selectedButtonId: 'CONFIRM_ORDER_42', selectedDisplayText: 'Yes, confirm', type: proto.Message.ButtonsResponseMessage.Type.DISPLAY_TEXT },
    }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080914', { type: 'button', text: 'Yes, confirm', payload: 'CONFIRM_ORDER_42' }, {
      buttonsResponseMessage: { selectedButtonId: 'CONFIRM_ORDER_42', selectedDisplayText: 'Yes, confirm', type: 'DISPLAY_TEXT' },
    })]);
  });

  it('message-interactive-list: a list response', async () => {
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080915', {
      listResponseMessage: {
        title: 'Pro plan', description: 'Unlimited instances', listType: proto.Message.ListResponseMessage.ListType.SINGLE_SELECT,
        singleSelectReply: { selectedRowId: 'plan-pro' },
      },
    }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080915', { type: 'list_reply', id: 'plan-pro', title: 'Pro plan', description: 'Unlimited instances' }, {
      listResponseMessage: { title: 'Pro plan', description: 'Unlimited instances', listType: 'SINGLE_SELECT', singleSelectReply: { selectedRowId: 'plan-pro' } },
    })]);
  });

  it('message-interactive-button: a native-flow reply gives the button id and title', async () => {
    const reply = { body: { text: 'Yes' }, nativeFlowResponseMessage: { name: 'quick_reply', paramsJson: '{"id":"btn-yes"}', version: 3 } };
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080916', { interactiveResponseMessage: reply }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080916', { type: 'button_reply', id: 'btn-yes', title: 'Yes' }, {
      interactiveResponseMessage: reply,
    })]);
  });

  it('message-interactive-list: a native-flow single_select reply is a list reply', async () => {
    const reply = { body: { text: 'Pro plan' }, nativeFlowResponseMessage: { name: 'single_select', paramsJson: '{"id":"plan-pro","description":"Unlimited"}', version: 3 } };
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080903', { interactiveResponseMessage: reply }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080903', { type: 'list_reply', id: 'plan-pro', title: 'Pro plan', description: 'Unlimited' }, {
      interactiveResponseMessage: reply,
    })]);
  });

  it('message-unsupported: a poll names its protocol type', async () => {
    const poll = { name: 'Lunch?', options: [{ optionName: 'Pizza' }, { optionName: 'Sushi' }], selectableOptionsCount: 1 };
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080917', { pollCreationMessageV3: poll, messageContextInfo: { messageSecret: Buffer.alloc(32, 1) } }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080917', { type: 'unsupported', typeName: 'pollCreationMessageV3' }, {
      // The record keeps the poll's secret (base64): votes on it are decrypted with it.
      pollCreationMessageV3: poll, messageContextInfo: { messageSecret: Buffer.alloc(32, 1).toString('base64') },
    })]);
  });

  it('message-reply-context: quoted message id and its sender number', async () => {
    const content = {
      extendedTextMessage: {
        text: 'Replying to you',
        contextInfo: { stanzaId: '3EB0FFEEDDCCBBAA99887766', participant: OWN_JID, quotedMessage: { conversation: 'Your order shipped' } },
      },
    };
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080918', content));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080918', { type: 'text', body: 'Replying to you' }, content, {
      context: { from: OWN_NUMBER, id: '3EB0FFEEDDCCBBAA99887766' },
    })]);
  });

  it('message-reply-context: a quoted LID participant resolves through the LID mapping', async () => {
    await socket.signalRepository.lidMapping.storeLIDPNMappings([{ lid: PEER_LID, pn: PEER_JID }]);
    const content = { extendedTextMessage: { text: 'this one', contextInfo: { stanzaId: '3EB0FFEEDDCCBBAA99887700', participant: PEER_LID } } };
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080904', content));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080904', { type: 'text', body: 'this one' }, content, {
      context: { from: PEER, id: '3EB0FFEEDDCCBBAA99887700' },
    })]);
  });

  it('message-referral: a click-to-WhatsApp ad reply carries the referral', async () => {
    const content = {
      extendedTextMessage: {
        text: 'I saw your ad',
        contextInfo: {
          externalAdReply: {
            title: 'Summer sale', body: '20% off everything', mediaType: proto.ContextInfo.ExternalAdReplyInfo.MediaType.IMAGE,
            thumbnailUrl: 'https://scontent.example/thumb.jpg', sourceType: 'ad', sourceId: '120210000000000001', sourceUrl: 'https://fb.me/3cr4Wqqkx',
            ctwaClid: 'ARAkLkA8rmlFeiCktEJQ',
          },
        },
      },
    };
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080919', content));
    const json = { extendedTextMessage: { ...content.extendedTextMessage, contextInfo: { externalAdReply: { ...content.extendedTextMessage.contextInfo.externalAdReply, mediaType: 'IMAGE' } } } };
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080919', { type: 'text', body: 'I saw your ad' }, json, {
      referral: {
        sourceUrl: 'https://fb.me/3cr4Wqqkx', sourceId: '120210000000000001', sourceType: 'ad', headline: 'Summer sale', body: '20% off everything',
        mediaType: 'image', thumbnailUrl: 'https://scontent.example/thumb.jpg', ctwaClid: 'ARAkLkA8rmlFeiCktEJQ',
      },
    })]);
  });

  it('message-group: from is the participant number, group id set, participant in the record', async () => {
    const msg = waMessage('3EB0A1B2C3D4E5F60708091A', { conversation: 'Hi group' }, {
      remoteJid: GROUP_JID, participant: '99887766554433@lid', participantAlt: '5511966665555@s.whatsapp.net',
    }, { pushName: 'Carla Dias' });
    const events = await receive(msg);
    assert.deepStrictEqual(events, [{
      type: 'message',
      message: {
        id: '3EB0A1B2C3D4E5F60708091A', chatJid: GROUP_JID, from: '5511966665555', fromUserId: '99887766554433@lid', fromMe: false,
        timestamp: T + 1, chatType: 'group', groupId: GROUP_JID, pushName: 'Carla Dias', content: { type: 'text', body: 'Hi group' },
        record: {
          key: { remoteJid: GROUP_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708091A', participant: '5511966665555@s.whatsapp.net' },
          message: { conversation: 'Hi group' }, messageTimestamp: String(T + 1), status: 'DELIVERY_ACK', provider: 'whatsapp', pushName: 'Carla Dias',
        },
      },
    }]);
  });

  it('message-from-me: a message sent from the phone has from = own number and from_me', async () => {
    const msg = waMessage('3EB0A1B2C3D4E5F60708091B', { conversation: 'Sent from my phone' }, { fromMe: true }, { pushName: 'Parley Test' });
    const events = await receive(msg);
    assert.deepStrictEqual(events, [{
      type: 'message',
      message: {
        id: '3EB0A1B2C3D4E5F60708091B', chatJid: PEER_JID, from: OWN_NUMBER, fromUserId: OWN_LID, fromMe: true, timestamp: T + 1,
        chatType: 'individual', pushName: 'Parley Test', content: { type: 'text', body: 'Sent from my phone' },
        record: {
          key: { remoteJid: PEER_JID, fromMe: true, id: '3EB0A1B2C3D4E5F60708091B' }, message: { conversation: 'Sent from my phone' },
          messageTimestamp: String(T + 1), status: 'SERVER_ACK', provider: 'whatsapp', pushName: 'Parley Test',
        },
      },
    }]);
  });

  it('message-edit: the edited content with the original id; the record replaces the original', async () => {
    const edit = waMessage('3EB0A1B2C3D4E5F60708091C', {
      editedMessage: {
        message: {
          protocolMessage: {
            key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708090A' }, type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
            editedMessage: { conversation: 'Hello from Maria (edited)' }, timestampMs: 1_735_700_019_000,
          },
        },
      },
    });
    const events = await receive(edit);
    const event = expected('3EB0A1B2C3D4E5F60708091C', { type: 'text', body: 'Hello from Maria (edited)' }, { conversation: 'Hello from Maria (edited)' }, {
      edit: { originalMessageId: '3EB0A1B2C3D4E5F60708090A' },
    }) as Extract<ChannelEventPayload, { type: 'message' }>;
    event.message.record.key.id = '3EB0A1B2C3D4E5F60708090A';
    assert.deepStrictEqual(events, [event]);
  });

  it('a 1:1 chat addressed by LID resolves to the phone number from remoteJidAlt', async () => {
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080905', { conversation: 'via lid' }, { remoteJid: PEER_LID, remoteJidAlt: PEER_JID }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080905', { type: 'text', body: 'via lid' }, { conversation: 'via lid' }, { fromUserId: PEER_LID })]);
  });

  it('a 1:1 chat addressed by LID alone resolves through the stored LID mapping', async () => {
    await socket.signalRepository.lidMapping.storeLIDPNMappings([{ lid: PEER_LID, pn: PEER_JID }]);
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080906', { conversation: 'lid only' }, { remoteJid: PEER_LID }));
    assert.deepStrictEqual(events, [expected('3EB0A1B2C3D4E5F607080906', { type: 'text', body: 'lid only' }, { conversation: 'lid only' }, { fromUserId: PEER_LID })]);
  });

  it('a revoked message becomes a message.delete event', async () => {
    const events = await receive(waMessage('3EB0A1B2C3D4E5F607080907', {
      protocolMessage: { key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708090A' }, type: proto.Message.ProtocolMessage.Type.REVOKE },
    }));
    assert.deepStrictEqual(events, [{ type: 'message.delete', chatJid: PEER_JID, messageIds: ['3EB0A1B2C3D4E5F60708090A'] }]);
  });

  it('protocol stubs, newsletters and broadcast-list copies are not messages', async () => {
    const events = await receive(
      waMessage('3EB0A1B2C3D4E5F607080908', { protocolMessage: { type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION } }),
      { key: { remoteJid: GROUP_JID, fromMe: false, id: 'STUB1' }, messageStubType: proto.WebMessageInfo.StubType.GROUP_CREATE, messageTimestamp: T },
      waMessage('3EB0A1B2C3D4E5F607080909', { conversation: 'news' }, { remoteJid: '120363000000000000@newsletter' }),
      waMessage('3EB0A1B2C3D4E5F60708090F0', { conversation: 'list copy' }, { remoteJid: '1735700000@broadcast' }),
    );
    assert.deepStrictEqual(events, []);
  });

  it('status stories are dropped unless receive_status_message is on', async () => {
    const story = waMessage('3EB0A1B2C3D4E5F6070809AA', { conversation: 'my story' }, { remoteJid: 'status@broadcast', participant: PEER_JID });
    assert.deepStrictEqual(await receive(story), []);
    const record = (await h.storage.instances.get(h.context.instanceId))!;
    await h.storage.instances.update(record.id, { flags: { ...record.flags, receiveStatusMessage: true } });
    const events = await receive(story);
    assert.equal(events.length, 1);
    const message = (events[0] as Extract<ChannelEventPayload, { type: 'message' }>).message;
    assert.deepStrictEqual([message.chatJid, message.from, message.chatType, message.record.key.participant], ['status@broadcast', PEER, 'individual', PEER_JID]);
  });
});

describe('mark_messages', () => {
  it('new incoming messages are marked read when the flag is on, those from the offline queue too; own and newsletter ones are not', async () => {
    const h = await createHarness({ instance: { flags: { ...defaultInstanceFlags(), markMessages: true } } });
    const socket = await connectOpen(h);
    const incoming = waMessage('IN1', { conversation: 'hi' });
    socket.emit('messages.upsert', { messages: [incoming, waMessage('OWN1', { conversation: 'me' }, { fromMe: true })], type: 'notify' });
    // `append`: what WhatsApp kept while the socket was away (stanzas marked offline).
    const whileAway = waMessage('OFF1', { conversation: 'while you were away' });
    const post = waMessage('NL1', { conversation: 'channel post' }, { remoteJid: '120363000000000777@newsletter' });
    socket.emit('messages.upsert', { messages: [whileAway, post], type: 'append' });
    await h.settle();
    assert.deepStrictEqual(socket.callsTo('readMessages'), [[[incoming.key]], [[whileAway.key]]]);
    assert.deepStrictEqual(h.eventsOf('message').map((e) => (e as Extract<ChannelEventPayload, { type: 'message' }>).message.id), ['IN1', 'OWN1', 'OFF1'], 'newsletter posts are not messages of a chat');
    await h.adapter.stop();
  });
});
