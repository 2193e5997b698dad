import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordMessageOf, type MediaInput } from '../src/index.js';

const png: MediaInput = { data: Buffer.from('png bytes'), sha256: 'aa', mimetype: 'image/png', sourceUrl: 'https://cdn.example.com/a.png' };

describe('recordMessageOf', () => {
  it('names the members every channel\'s records share, with what the content says and never media bytes', () => {
    assert.deepEqual(recordMessageOf({ type: 'text', text: 'hi' }), { extendedTextMessage: { text: 'hi' } });
    assert.deepEqual(recordMessageOf({ type: 'image', media: png, caption: 'look' }), { imageMessage: { url: 'https://cdn.example.com/a.png', mimetype: 'image/png', caption: 'look' } });
    assert.deepEqual(recordMessageOf({ type: 'audio', media: { data: Buffer.alloc(1), sha256: 'bb', mimetype: 'audio/ogg' }, ptt: true }), { audioMessage: { mimetype: 'audio/ogg', ptt: true } });
    assert.deepEqual(recordMessageOf({ type: 'document', media: png, mimetype: 'application/pdf', fileName: 'a.pdf' }),
      { documentMessage: { url: 'https://cdn.example.com/a.png', mimetype: 'application/pdf', fileName: 'a.pdf' } });
    assert.deepEqual(recordMessageOf({ type: 'location', latitude: 1.5, longitude: -2, name: 'Here' }), { locationMessage: { degreesLatitude: 1.5, degreesLongitude: -2, name: 'Here' } });
    assert.deepEqual(recordMessageOf({ type: 'reaction', emoji: '👍', target: { remoteJid: 'a', fromMe: false, id: 'm1' } }),
      { reactionMessage: { key: { remoteJid: 'a', fromMe: false, id: 'm1' }, text: '👍' } });
  });

  it('names another content type after its type, with its text and number members', () => {
    assert.deepEqual(recordMessageOf({ type: 'group-invite', groupJid: 'g1', groupName: 'Friends', inviteCode: 'ABC' }),
      { groupInviteMessage: { groupJid: 'g1', groupName: 'Friends', inviteCode: 'ABC' } });
    assert.deepEqual(recordMessageOf({ type: 'poll', name: 'Lunch?', values: ['yes', 'no'], selectableCount: 1 }), { pollMessage: { name: 'Lunch?', selectableCount: 1 } });
  });
});
