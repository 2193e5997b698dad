import type { ActionButton, ContactCard, MediaInput, OutgoingContent, ReplyButton } from '@parley/core';

/**
 * Pieces of WhatsApp's message format that every main-channel driver builds the same way (the
 * Baileys connection and the sandbox), so records read the same whichever driver sent them.
 */

/** A native-flow button as WhatsApp carries it: a flow name plus its parameters as JSON text. */
export interface NativeFlowButton {
  name: string;
  buttonParamsJson: string;
}

/** Pin durations WhatsApp offers, in seconds: 24 hours, 7 days, 30 days. */
export const PIN_DURATIONS = [86_400, 604_800, 2_592_000] as const;

/** The shortest pin duration WhatsApp offers that covers `seconds` (30 days at most). */
export function pinDurationFor(seconds: number): (typeof PIN_DURATIONS)[number] {
  return PIN_DURATIONS.find((d) => d >= seconds) ?? PIN_DURATIONS[PIN_DURATIONS.length - 1]!;
}

function escapeVcard(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/;/g, '\\;').replace(/\r?\n/g, '\\n');
}

/**
 * The vCard 3.0 of a shared contact (spec 2.12): `FN`, `ORG` when given, and a `TEL` carrying the
 * `waid` parameter, which is what makes WhatsApp apps offer "Message" for the number.
 */
export function buildVcard(card: ContactCard): string {
  const digits = card.phoneNumber.replace(/\D/g, '');
  const lines = ['BEGIN:VCARD', 'VERSION:3.0', `FN:${escapeVcard(card.fullName)}`];
  if (card.organization) lines.push(`ORG:${escapeVcard(card.organization)};`);
  lines.push(`TEL;type=CELL;type=VOICE;waid=${digits}:+${digits}`, 'END:VCARD');
  return lines.join('\n');
}

/** Quick-reply buttons (spec 4.2 `/button_reply`). */
export function quickReplyButtons(buttons: ReplyButton[]): NativeFlowButton[] {
  return buttons.map((b) => ({ name: 'quick_reply', buttonParamsJson: JSON.stringify({ display_text: b.text, id: b.id }) }));
}

/** URL, call and copy-code buttons (spec 4.2 `/button_action`). */
export function actionFlowButtons(buttons: ActionButton[]): NativeFlowButton[] {
  return buttons.map((b): NativeFlowButton => {
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

/** Money in native flows: an integer with an offset (offset 100 = two decimals). */
function flowAmount(value: number): { value: number; offset: number } {
  return { value: Math.round(value * 100), offset: 100 };
}

/**
 * A Pix payment request (spec 4.2 `/pix`) as WhatsApp's Brazilian order flow `review_and_pay`: the
 * order items, subtotal and total, paid with a dynamic Pix code. Chosen over `payment_info` (a bare
 * Pix key) because the request carries an itemized order.
 */
export function pixPaymentButton(pix: Extract<OutgoingContent, { type: 'pix' }>): NativeFlowButton {
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
      total_amount: flowAmount(pix.totalAmount),
      order: {
        status: 'pending',
        subtotal: flowAmount(pix.subtotal),
        items: pix.items.map((i) => ({ retailer_id: i.id, name: i.name, amount: flowAmount(i.price), quantity: i.quantity })),
      },
    }),
  };
}

/**
 * WhatsApp's `interactiveMessage` member: an optional header title, the body text, an optional
 * footer and native-flow buttons (none for a titled message). An empty `buttons` list is left out,
 * as the proto's JSON form leaves out empty repeated fields, so stored records match what a phone
 * (and the Baileys channel) keeps.
 */
export function interactiveMessage(input: { title?: string; text: string; footer?: string; buttons: NativeFlowButton[] }): Record<string, unknown> {
  return {
    interactiveMessage: {
      ...(input.title ? { header: { title: input.title, hasMediaAttachment: false } } : {}),
      body: { text: input.text },
      ...(input.footer ? { footer: { text: input.footer } } : {}),
      nativeFlowMessage: { ...(input.buttons.length > 0 ? { buttons: input.buttons } : {}), messageVersion: 1 },
    },
  };
}

/** An animated sticker: a GIF, or a WebP whose RIFF container holds an `ANIM` chunk. */
export function isAnimatedSticker(media: Pick<MediaInput, 'data' | 'mimetype'>): boolean {
  if (media.mimetype === 'image/gif') return true;
  if (media.mimetype !== 'image/webp' || media.data.length < 16) return false;
  return media.data.subarray(0, 12).toString('latin1', 8, 12) === 'WEBP' && media.data.includes('ANIM', 12, 'latin1');
}
