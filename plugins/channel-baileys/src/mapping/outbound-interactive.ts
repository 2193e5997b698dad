import type { ActionButton, OutgoingContent, ReplyButton } from '@parley/core';
import type { BinaryNode, proto } from '@whiskeysockets/baileys';

type Pix = Extract<OutgoingContent, { type: 'pix' }>;
type Button = proto.Message.InteractiveMessage.NativeFlowMessage.INativeFlowButton;

/**
 * The stanza node WhatsApp expects beside a native-flow interactive message; without it recipients'
 * apps show "this message is not supported".
 */
export const NATIVE_FLOW_NODES: BinaryNode[] = [{
  tag: 'biz',
  attrs: {},
  content: [{ tag: 'interactive', attrs: { type: 'native_flow', v: '1' }, content: [{ tag: 'native_flow', attrs: { v: '9', name: 'mixed' } }] }],
}];

/** Money as WhatsApp's native flows write it: an integer value with an offset (100 = two decimals). */
const amount = (value: number) => ({ value: Math.round(value * 100), offset: 100 });

/** An interactive message with header title, body and footer around native-flow buttons. */
export function interactive(input: { title?: string; text: string; footer?: string; buttons: Button[] }): proto.IMessage {
  return {
    interactiveMessage: {
      ...(input.title ? { header: { title: input.title, hasMediaAttachment: false } } : {}),
      body: { text: input.text },
      ...(input.footer ? { footer: { text: input.footer } } : {}),
      nativeFlowMessage: { buttons: input.buttons, messageVersion: 1 },
    },
  };
}

/** Quick-reply buttons (spec 4.2 `/button_reply`). */
export function quickReplies(buttons: ReplyButton[]): Button[] {
  return buttons.map((b) => ({ name: 'quick_reply', buttonParamsJson: JSON.stringify({ display_text: b.text, id: b.id }) }));
}

/** URL, call and copy-code buttons (spec 4.2 `/button_action`). */
export function actionButtons(buttons: ActionButton[]): Button[] {
  return buttons.map((b) => {
    switch (b.type) {
      case 'cta_url':
        return { name: 'cta_url', buttonParamsJson: JSON.stringify({ display_text: b.text, url: b.url, merchant_url: b.url }) };
      case 'cta_call':
        return { name: 'cta_call', buttonParamsJson: JSON.stringify({ display_text: b.text, phone_number: b.phone_number }) };
      case 'cta_copy':
        return { name: 'cta_copy', buttonParamsJson: JSON.stringify({ display_text: b.text, copy_code: b.copy_code }) };
    }
  });
}

/**
 * A Pix payment request: the `review_and_pay` order-details flow with a dynamic Pix code, shaped as
 * WhatsApp's Brazil payments define it (order items, subtotal and total in cents).
 */
export function pixButton(pix: Pix): Button {
  return {
    name: 'review_and_pay',
    buttonParamsJson: JSON.stringify({
      reference_id: pix.referenceId,
      type: 'physical-goods',
      payment_type: 'br',
      payment_settings: [{
        type: 'pix_dynamic_code',
        pix_dynamic_code: { code: pix.code, merchant_name: pix.merchantName, key: pix.key, key_type: pix.keyType },
      }],
      currency: 'BRL',
      total_amount: amount(pix.totalAmount),
      order: {
        status: 'pending',
        subtotal: amount(pix.subtotal),
        items: pix.items.map((i) => ({ retailer_id: i.id, name: i.name, amount: amount(i.price), quantity: i.quantity })),
      },
    }),
  };
}
