import { interactiveMessage, type NativeFlowButton } from '@parley/core';
import { proto, type BinaryNode } from '@whiskeysockets/baileys';

/**
 * The stanza node WhatsApp expects beside a native-flow interactive message; without it recipients'
 * apps show "this message is not supported".
 */
export const NATIVE_FLOW_NODES: BinaryNode[] = [{
  tag: 'biz',
  attrs: {},
  content: [{ tag: 'interactive', attrs: { type: 'native_flow', v: '1' }, content: [{ tag: 'native_flow', attrs: { v: '9', name: 'mixed' } }] }],
}];

/**
 * A native-flow interactive message as a proto message. The content comes from core's
 * `interactiveMessage`, so the sandbox channel stores exactly what this channel relays.
 */
export function nativeFlowMessage(input: { title?: string | undefined; text: string; footer?: string | undefined; buttons: NativeFlowButton[] }): proto.Message {
  return proto.Message.fromObject(interactiveMessage(input));
}
