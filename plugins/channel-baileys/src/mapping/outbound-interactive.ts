import type { BinaryNode } from '@whiskeysockets/baileys';

/**
 * The stanza node WhatsApp expects beside a native-flow interactive message; without it recipients'
 * apps show "this message is not supported".
 */
export const NATIVE_FLOW_NODES: BinaryNode[] = [{
  tag: 'biz',
  attrs: {},
  content: [{ tag: 'interactive', attrs: { type: 'native_flow', v: '1' }, content: [{ tag: 'native_flow', attrs: { v: '9', name: 'mixed' } }] }],
}];
