import { randomBytes } from 'node:crypto';
import { isLidUser, isPnUser, type BinaryNode, type proto } from '@whiskeysockets/baileys';

/*
 * The stanza nodes live WhatsApp clients send beside an interactive (native-flow) message. WhatsApp does
 * not document them; what follows is what public projects measured against the live server:
 *
 * - tulir/whatsmeow PR #1235 (acks read back from a real device): no `<biz>` is accepted but nothing
 *   renders; `<biz><interactive type="native_flow" v="1"/></biz>` is refused with `<ack error="479">`; what
 *   is delivered and renders is `<biz actual_actors="2" host_storage="2" privacy_mode_ts="<unix s>">` holding
 *   `<interactive type="native_flow" v="1"><native_flow v="9" name="mixed"/></interactive>` and
 *   `<quality_control decision_id="<20 random bytes, hex>">`. WhiskeySockets/Baileys PR #2532
 *   (src/Socket/messages-send.ts getButtonArgs) sends the same `mixed` shape for every native-flow button.
 * - `<quality_control>`: `source_type="third_party"` as Baileys PR #2532 sends it; the
 *   `<decision_source value="df"/>` child as other published senders of this shape add it.
 * - Payment flows are their own flow, not `mixed`: for a first button `review_and_pay` the `<biz>` names
 *   `native_flow_name="order_details"` (`payment_info`: its own name) and holds no `<interactive>` child
 *   (Baileys PR #2532; Itsukichann/Baileys lib/Socket/messages-send.js getButtonArgs). Those two send it
 *   without the `<biz>` attributes; we keep them (and `<quality_control>`), which whatsmeow PR #1235 found
 *   the server wants on `<biz>`.
 * - `<bot biz_bot="1"/>`, a sibling of `<biz>`, in 1:1 chats only (Itsukichann/Baileys
 *   lib/Socket/messages-send.js relayMessage: `if (isPrivate)`; Baileys PR #2324 and #2459: not in
 *   groups). Baileys PR #2348 reports that WhatsApp Web and Desktop do not render buttons sent with it
 *   (phones do).
 */

/** The `<biz>` attributes live clients send on every business stanza (whatsmeow PR #1235). */
function bizAttributes(nowMs: number): Record<string, string> {
  return { actual_actors: '2', host_storage: '2', privacy_mode_ts: String(Math.floor(nowMs / 1000)) };
}

/** A fresh `<quality_control>`: one random decision id per message. */
function qualityControl(): BinaryNode {
  return {
    tag: 'quality_control',
    attrs: { decision_id: randomBytes(20).toString('hex'), source_type: 'third_party' },
    content: [{ tag: 'decision_source', attrs: { value: 'df' } }],
  };
}

/** Payment buttons and the `native_flow_name` their `<biz>` names (Baileys PR #2532). */
const PAYMENT_FLOWS: Record<string, string> = { review_and_pay: 'order_details', payment_info: 'payment_info' };

/**
 * The `<biz>` node of a native-flow message: a payment flow (Pix's `review_and_pay`) as its own flow, any
 * other buttons (or none, a titled message) under `mixed`.
 */
export function bizNode(message: proto.IMessage, nowMs: number): BinaryNode {
  const firstButton = message.interactiveMessage?.nativeFlowMessage?.buttons?.[0]?.name ?? '';
  const payment = PAYMENT_FLOWS[firstButton];
  if (payment) return { tag: 'biz', attrs: { ...bizAttributes(nowMs), native_flow_name: payment }, content: [qualityControl()] };
  return {
    tag: 'biz',
    attrs: bizAttributes(nowMs),
    content: [
      { tag: 'interactive', attrs: { type: 'native_flow', v: '1' }, content: [{ tag: 'native_flow', attrs: { v: '9', name: 'mixed' } }] },
      qualityControl(),
    ],
  };
}

/**
 * Every node relayed beside a native-flow message (`relayMessage`'s `additionalNodes`): its `<biz>`, and
 * `<bot biz_bot="1"/>` when `jid` is a person (phone-number or LID JID), never in a group.
 *
 * @param message the proto message as relayed (an `interactiveMessage` with a `nativeFlowMessage`)
 * @param jid the chat it goes to
 * @param nowMs the clock's now, for `privacy_mode_ts`
 */
export function nativeFlowNodes(message: proto.IMessage, jid: string, nowMs: number): BinaryNode[] {
  const oneToOne = isPnUser(jid) === true || isLidUser(jid) === true;
  return [bizNode(message, nowMs), ...(oneToOne ? [{ tag: 'bot', attrs: { biz_bot: '1' } }] : [])];
}
