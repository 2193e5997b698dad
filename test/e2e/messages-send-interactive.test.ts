import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sealed } from '../support/message-secret.js';
import { MessagingPair } from '../support/messaging.js';

/** Spec 4.2: the interactive sends (title, buttons, survey, poll, pix, event); the others are in messages-send.test.ts. */
describe('sending interactive message types (spec 4.2)', () => {
  let p: MessagingPair;

  before(async () => {
    p = await MessagingPair.start();
  });
  after(async () => {
    await p.stop();
  });

  const to = () => p.bob.number;

  it('title: interactiveMessage with header, body and footer', async () => {
    const record = await p.sendVia('sendTitle', { to: to(), title: 'Order #41', text: 'Your order shipped', footer: 'Acme' });
    p.expectSent(record, {
      interactiveMessage: {
        header: { title: 'Order #41', hasMediaAttachment: false }, body: { text: 'Your order shipped' }, footer: { text: 'Acme' },
        nativeFlowMessage: { messageVersion: 1 },
      },
    });
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, { type: 'unsupported', typeName: 'interactiveMessage' });
  });

  it('button_reply: quick_reply native-flow buttons', async () => {
    const record = await p.sendVia('sendButtonReply', {
      to: to(), header: { title: 'Survey' }, text: 'Did it arrive?', footer: 'Acme',
      buttons: [{ type: 'quick_reply', id: 'yes', text: 'Yes' }, { type: 'quick_reply', id: 'no', text: 'No' }],
    });
    p.expectSent(record, {
      interactiveMessage: {
        header: { title: 'Survey', hasMediaAttachment: false }, body: { text: 'Did it arrive?' }, footer: { text: 'Acme' },
        nativeFlowMessage: {
          buttons: [
            { name: 'quick_reply', buttonParamsJson: '{"display_text":"Yes","id":"yes"}' },
            { name: 'quick_reply', buttonParamsJson: '{"display_text":"No","id":"no"}' },
          ],
          messageVersion: 1,
        },
      },
    });
    p.expectStored((await p.received(record.key.id)).record, record);
  });

  it('button_action: URL, call and copy-code buttons', async () => {
    const record = await p.sendVia('sendButtonAction', {
      to: to(), text: 'Need help?',
      buttons: [
        { type: 'cta_url', text: 'Site', url: 'https://acme.example/help' },
        { type: 'cta_call', text: 'Call us', phone_number: '+5511999990000' },
        { type: 'cta_copy', text: 'Coupon', copy_code: 'SAVE10' },
      ],
    });
    p.expectSent(record, {
      interactiveMessage: {
        body: { text: 'Need help?' },
        nativeFlowMessage: {
          buttons: [
            { name: 'cta_url', buttonParamsJson: '{"display_text":"Site","url":"https://acme.example/help","merchant_url":"https://acme.example/help"}' },
            { name: 'cta_call', buttonParamsJson: '{"display_text":"Call us","phone_number":"+5511999990000"}' },
            { name: 'cta_copy', buttonParamsJson: '{"display_text":"Coupon","copy_code":"SAVE10"}' },
          ],
          messageVersion: 1,
        },
      },
    });
    p.expectStored((await p.received(record.key.id)).record, record);
  });

  it('survey: a single-answer poll, pollCreationMessageV3', async () => {
    const record = await p.sendVia('sendSurvey', { to: to(), name: 'Best day?', options: ['Mon', 'Fri'] });
    p.expectSent(record, sealed({ pollCreationMessageV3: { name: 'Best day?', options: [{ optionName: 'Mon' }, { optionName: 'Fri' }], selectableOptionsCount: 1 } }));
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, { type: 'unsupported', typeName: 'pollCreationMessageV3' });
  });

  it('poll: pollCreationMessage with the selectable count; a single-answer poll is pollCreationMessageV3', async () => {
    const record = await p.sendVia('sendPoll', { to: to(), name: 'Toppings', values: ['Cheese', 'Olives', 'Basil'], selectableCount: 2 });
    p.expectSent(record, sealed({
      pollCreationMessage: { name: 'Toppings', options: [{ optionName: 'Cheese' }, { optionName: 'Olives' }, { optionName: 'Basil' }], selectableOptionsCount: 2 },
    }));
    p.expectStored((await p.received(record.key.id)).record, record);
    const single = await p.sendVia('sendPoll', { to: to(), name: 'Size', values: ['S', 'L'], selectableCount: 1 });
    p.expectSent(single, sealed({ pollCreationMessageV3: { name: 'Size', options: [{ optionName: 'S' }, { optionName: 'L' }], selectableOptionsCount: 1 } }));
    p.expectStored((await p.received(single.key.id)).record, single);
  });

  it('pix: interactiveMessage with the review_and_pay order flow', async () => {
    const record = await p.sendVia('sendPix', {
      to: to(), title: 'Pedido 77', text: 'Pague com Pix', referenceId: 'PED77', code: '00020126580014br.gov.bcb.pix0136chave', key: '12345678000199',
      merchantName: 'Acme LTDA', keyType: 'CNPJ', items: [{ id: 'sku-1', name: 'Caneca', price: 19.9, quantity: 2 }, { id: 'sku-2', name: 'Frete', price: 10, quantity: 1 }],
      subtotal: 49.8, totalAmount: 49.8,
    });
    const params = {
      reference_id: 'PED77', type: 'physical-goods', payment_type: 'br',
      payment_settings: [{ type: 'pix_dynamic_code', pix_dynamic_code: { code: '00020126580014br.gov.bcb.pix0136chave', merchant_name: 'Acme LTDA', key: '12345678000199', key_type: 'CNPJ' } }],
      currency: 'BRL', total_amount: { value: 4980, offset: 100 },
      order: {
        status: 'pending', subtotal: { value: 4980, offset: 100 },
        items: [
          { retailer_id: 'sku-1', name: 'Caneca', amount: { value: 1990, offset: 100 }, quantity: 2 },
          { retailer_id: 'sku-2', name: 'Frete', amount: { value: 1000, offset: 100 }, quantity: 1 },
        ],
      },
    };
    p.expectSent(record, {
      interactiveMessage: {
        header: { title: 'Pedido 77', hasMediaAttachment: false }, body: { text: 'Pague com Pix' },
        nativeFlowMessage: { buttons: [{ name: 'review_and_pay', buttonParamsJson: JSON.stringify(params) }], messageVersion: 1 },
      },
    });
    p.expectStored((await p.received(record.key.id)).record, record);
  });

  it('event: eventMessage with startTime in Unix seconds (64-bit, as text)', async () => {
    const record = await p.sendVia('sendEvent', {
      to: to(), name: 'Launch', description: 'Release party', startTime: '2030-05-01T18:30:00Z', locationName: 'HQ', locationAddress: 'Rua A, 1',
    });
    p.expectSent(record, sealed({
      eventMessage: {
        isCanceled: false, name: 'Launch', description: 'Release party', location: { name: 'HQ', address: 'Rua A, 1' },
        startTime: String(Date.UTC(2030, 4, 1, 18, 30) / 1000), isScheduleCall: false,
      },
    }));
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, { type: 'unsupported', typeName: 'eventMessage' });
  });
});
