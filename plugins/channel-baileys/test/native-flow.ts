import assert from 'node:assert/strict';
import { NOW_S } from './harness.js';

/** Stands in for the random `decision_id` of a `<quality_control>` in expectations. */
export const DECISION_ID = '<20 random bytes, hex>';

/** A node as relayed (Baileys' BinaryNode, without bytes). */
interface Node {
  tag: string;
  attrs: Record<string, string>;
  content?: Node[];
}

/**
 * The nodes the channel relays beside a native-flow message at the harness clock: `<biz>` (under `mixed`, or
 * a payment flow's own `native_flow_name`) and, in a 1:1 chat, `<bot biz_bot="1"/>`.
 */
export function expectedNativeFlowNodes(flow: 'mixed' | 'order_details', oneToOne: boolean): Node[] {
  const attrs = { actual_actors: '2', host_storage: '2', privacy_mode_ts: String(NOW_S) };
  const quality: Node = { tag: 'quality_control', attrs: { decision_id: DECISION_ID, source_type: 'third_party' }, content: [{ tag: 'decision_source', attrs: { value: 'df' } }] };
  const biz: Node = flow === 'mixed'
    ? { tag: 'biz', attrs, content: [{ tag: 'interactive', attrs: { type: 'native_flow', v: '1' }, content: [{ tag: 'native_flow', attrs: { v: '9', name: 'mixed' } }] }, quality] }
    : { tag: 'biz', attrs: { ...attrs, native_flow_name: flow }, content: [quality] };
  return [biz, ...(oneToOne ? [{ tag: 'bot', attrs: { biz_bot: '1' } }] : [])];
}

/** Relay options with each `<quality_control>`'s decision id checked (40 hex digits) and replaced by DECISION_ID. */
export function withDecisionIds<T extends { additionalNodes?: unknown }>(options: T): T {
  const nodes = structuredClone(options.additionalNodes) as Node[];
  for (const quality of nodes.flatMap((n) => n.content ?? []).filter((n) => n.tag === 'quality_control')) {
    assert.match(quality.attrs.decision_id ?? '', /^[0-9a-f]{40}$/);
    quality.attrs.decision_id = DECISION_ID;
  }
  return { ...options, additionalNodes: nodes };
}
