import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileNameOf, mapEntry as mapAll, mimeTypeOf, type MappedEvent, type MessagingEvent, type WebhookMessage } from '../src/index.js';

/** The events of an entry (the referrals kept for later are tested through the adapter). */
const mapEntry = (...args: Parameters<typeof mapAll>): MappedEvent[] => mapAll(...args).filter((mapped): mapped is MappedEvent => 'payload' in mapped);

const event = (message: WebhookMessage | undefined, extra: Record<string, unknown> = {}): MessagingEvent => ({
  sender: { id: '111' }, recipient: { id: '999' }, timestamp: 1718000000999, message, ...extra,
});

describe('mapEntry', () => {
  it('leaves out events without sender, recipient or mid, and unknown event kinds', () => {
    const mapped = mapEntry({
      id: '999', time: 1718000000000,
      messaging: [
        { recipient: { id: '999' }, message: { mid: 'm_1', text: 'x' } },
        event({ text: 'no mid' }),
        event(undefined, { optin: { ref: 'x' } }),
        null as never,
      ],
    }, 'messenger', 0);
    assert.deepStrictEqual(mapped, []);
  });

  it('splits several attachments into messages with suffixed ids and puts the text first', () => {
    const mapped = mapEntry({
      id: '999',
      messaging: [event({
        mid: 'm_2', text: 'two photos',
        attachments: [{ type: 'image', payload: { url: 'https://cdn.example/a.jpg' } }, { type: 'video', payload: { url: 'https://cdn.example/b.mp4' } }],
      })],
    }, 'messenger', 0);
    assert.deepStrictEqual(mapped.map(({ payload, dedupKey }) => payload.type === 'message' && {
      id: payload.message.id, dedupKey, type: payload.message.content.type,
      mediaId: 'media' in payload.message.content ? payload.message.content.media.id : undefined,
    }), [
      { id: 'm_2', dedupKey: 'm_2', type: 'text', mediaId: undefined },
      { id: 'm_2_1', dedupKey: 'm_2_1', type: 'image', mediaId: 'm_2_1' },
      { id: 'm_2_2', dedupKey: 'm_2_2', type: 'video', mediaId: 'm_2_2' },
    ]);
  });

  it('makes the text the caption of a sole image, and maps a legacy location', () => {
    const mapped = mapEntry({
      id: '999',
      messaging: [
        event({ mid: 'm_3', text: 'look', attachments: [{ type: 'image', payload: { url: 'https://cdn.example/a.jpg' } }] }),
        event({ mid: 'm_4', attachments: [{ type: 'location', payload: { title: 'Office', coordinates: { lat: -23.5, long: -46.6 } } }] }),
        event({ mid: 'm_5', attachments: [{ type: 'fallback', payload: { url: 'https://example.com', title: 'Example' } }] }),
        event({ mid: 'm_6' }),
      ],
    }, 'messenger', 0);
    assert.deepStrictEqual(mapped.map(({ payload }) => payload.type === 'message' && payload.message.content), [
      { type: 'image', media: { id: 'm_3', mimeType: 'image/jpeg', sha256: '', link: 'https://cdn.example/a.jpg', caption: 'look' } },
      { type: 'location', latitude: -23.5, longitude: -46.6, name: 'Office' },
      { type: 'unsupported', typeName: 'fallback' },
      { type: 'unsupported', typeName: 'unknown' },
    ]);
  });

  it('uses the entry time, then the receive time, when an event has no timestamp', () => {
    const withoutTimestamp = { sender: { id: '111' }, recipient: { id: '999' }, message: { mid: 'm_7', text: 'x' } };
    const [fromEntry] = mapEntry({ id: '999', time: 1718000005000, messaging: [withoutTimestamp] }, 'instagram', 1);
    const [fromReceipt] = mapEntry({ id: '999', messaging: [withoutTimestamp] }, 'instagram', 1718000009000);
    assert.equal(fromEntry!.payload.type === 'message' && fromEntry.payload.message.timestamp, 1718000005);
    assert.equal(fromReceipt!.payload.type === 'message' && fromReceipt.payload.message.timestamp, 1718000009);
  });
});

describe('media info', () => {
  it('types media by extension, else by kind', () => {
    assert.equal(mimeTypeOf('https://cdn.example/v/a.PNG?x=1', 'image'), 'image/png');
    assert.equal(mimeTypeOf('https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=1', 'video'), 'video/mp4');
    assert.equal(mimeTypeOf('not a url', 'file'), 'application/octet-stream');
  });

  it('names files by their last path segment', () => {
    assert.equal(fileNameOf('https://cdn.fbsbx.com/v/t59/1_n.pdf/Relat%C3%B3rio%20Q2.pdf?oh=1'), 'Relatório Q2.pdf');
    assert.equal(fileNameOf('https://cdn.fbsbx.com/'), 'file');
  });
});
