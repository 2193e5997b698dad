import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { MediaInput } from '@parley/core';
import { isAnimatedSticker } from '@parley/whatsapp-proto';
import { outgoingToProto, SANDBOX_SEND_TYPES } from '../src/content/outgoing-to-proto.js';
import { inboundContentOf } from '../src/content/packet-to-inbound.js';

const ID = '3EB0AAAAAAAAAAAAAAAAAA';

function mediaInput(data: Buffer, mimetype: string): MediaInput {
  return { data, mimetype, sha256: createHash('sha256').update(data).digest('hex') };
}

describe('sandbox content mapping', () => {
  it('carries every send type', () => {
    assert.deepEqual([...SANDBOX_SEND_TYPES].sort(), [
      'audio', 'button_action', 'button_reply', 'call-link', 'contact', 'contacts', 'document', 'event', 'group-invite', 'image', 'link', 'live-location',
      'location', 'pin', 'pix', 'poll', 'product', 'reaction', 'request-phone', 'sticker', 'survey', 'text', 'title', 'unpin', 'video', 'video-note',
    ]);
  });

  it('detects animated stickers: a GIF, or a WebP with an ANIM chunk', () => {
    const still = Buffer.concat([Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8 ', 'latin1'), Buffer.alloc(64)]);
    const animated = Buffer.concat([Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8X', 'latin1'), Buffer.alloc(10), Buffer.from('ANIM'), Buffer.alloc(32)]);
    assert.equal(isAnimatedSticker(mediaInput(still, 'image/webp')), false);
    assert.equal(isAnimatedSticker(mediaInput(animated, 'image/webp')), true);
    assert.equal(isAnimatedSticker(mediaInput(still, 'image/gif')), true);
    assert.equal(isAnimatedSticker(mediaInput(animated, 'image/png')), false);
  });

  it('round-trips media: the digest in the record is the hex sha256 of the bytes again', () => {
    const data = Buffer.from('voice bytes');
    const message = outgoingToProto({ type: 'audio', media: mediaInput(data, 'audio/ogg'), ptt: true }, 1_700_000_000_000);
    assert.deepEqual(inboundContentOf(message, ID), {
      type: 'audio', media: { id: ID, mimeType: 'audio/ogg', sha256: createHash('sha256').update(data).digest('hex') }, voice: true,
    });
  });

  it('normalizes plain texts, and skips members beside the typed one', () => {
    assert.deepEqual(inboundContentOf({ conversation: 'hi' }, ID), { type: 'text', body: 'hi' });
    assert.deepEqual(inboundContentOf({ messageContextInfo: { x: 1 }, extendedTextMessage: { text: 'yo' } }, ID), { type: 'text', body: 'yo' });
  });

  it('normalizes reactions and their removal', () => {
    const key = { remoteJid: '5511@s.whatsapp.net', fromMe: true, id: 'M1' };
    assert.deepEqual(inboundContentOf({ reactionMessage: { key, text: '🎉' } }, ID), { type: 'reaction', messageId: 'M1', emoji: '🎉' });
    assert.deepEqual(inboundContentOf({ reactionMessage: { key, text: '' } }, ID), { type: 'reaction', messageId: 'M1' });
  });

  it('normalizes button, list and native-flow replies', () => {
    assert.deepEqual(inboundContentOf({ buttonsResponseMessage: { selectedButtonId: 'yes', selectedDisplayText: 'Yes' } }, ID),
      { type: 'button', text: 'Yes', payload: 'yes' });
    assert.deepEqual(inboundContentOf({ templateButtonReplyMessage: { selectedId: 'b2', selectedDisplayText: 'Later' } }, ID),
      { type: 'button', text: 'Later', payload: 'b2' });
    assert.deepEqual(inboundContentOf({ listResponseMessage: { title: 'Large', description: '40 cm', singleSelectReply: { selectedRowId: 'L' } } }, ID),
      { type: 'list_reply', id: 'L', title: 'Large', description: '40 cm' });
    assert.deepEqual(inboundContentOf({
      interactiveResponseMessage: { body: { text: 'Yes' }, nativeFlowResponseMessage: { name: 'quick_reply', paramsJson: '{"id":"yes"}' } },
    }, ID), { type: 'button_reply', id: 'yes', title: 'Yes' });
    assert.deepEqual(inboundContentOf({
      interactiveResponseMessage: { body: { text: '' }, nativeFlowResponseMessage: { name: 'single_select', paramsJson: '{"id":"r1","title":"Row 1","description":"first"}' } },
    }, ID), { type: 'list_reply', id: 'r1', title: 'Row 1', description: 'first' });
    assert.deepEqual(inboundContentOf({
      interactiveResponseMessage: { nativeFlowResponseMessage: { name: 'quick_reply', paramsJson: 'not json' } },
    }, ID), { type: 'button_reply', id: '', title: '' });
  });

  it('names every other member as unsupported', () => {
    assert.deepEqual(inboundContentOf({ pollUpdateMessage: {} }, ID), { type: 'unsupported', typeName: 'pollUpdateMessage' });
    assert.deepEqual(inboundContentOf({}, ID), { type: 'unsupported', typeName: 'unknown' });
  });
});
