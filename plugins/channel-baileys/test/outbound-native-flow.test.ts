import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OutgoingContent, SendRequest } from '@parley/core';
import type { FakeSocket } from '../src/testing/index.js';
import { eachOpenHarnessWithoutFetch, GROUP_JID, PEER, PEER_LID, type Harness } from './harness.js';
import { expectedNativeFlowNodes, withDecisionIds } from './native-flow.js';

// Issue 25, defect 2: the nodes relayed beside native-flow messages are the ones live clients send.
describe('sending: the stanza nodes of native-flow messages', () => {
  let h: Harness;
  let socket: FakeSocket;
  eachOpenHarnessWithoutFetch((harness, open) => {
    h = harness;
    socket = open;
  });

  const send = (content: OutgoingContent, extra: Partial<SendRequest> = {}) => h.adapter.capabilities.messaging!.send({ to: PEER, content, ...extra });
  const BUTTONS: OutgoingContent = { type: 'button_reply', text: 'Confirm?', buttons: [{ id: 'yes', text: 'Yes' }] };
  const relayedNodes = () => socket.callsTo('relayMessage').map((call) => (call[2] as { additionalNodes: unknown[] }).additionalNodes);

  it('a group gets <biz> without <bot biz_bot="1"/> (1:1 chats only)', async () => {
    await send(BUTTONS, { to: GROUP_JID });
    const [options] = socket.callsTo('relayMessage').map((call) => call[2] as { additionalNodes: unknown[] });
    assert.equal(socket.callsTo('relayMessage')[0]![0], GROUP_JID);
    assert.deepStrictEqual(withDecisionIds(options!).additionalNodes, expectedNativeFlowNodes('mixed', false));
  });

  it('a LID chat is 1:1: <bot biz_bot="1"/> goes beside <biz>', async () => {
    await send({ type: 'title', title: 'Order', text: 'Shipped' }, { to: PEER_LID });
    const [options] = socket.callsTo('relayMessage').map((call) => call[2] as { additionalNodes: unknown[] });
    assert.deepStrictEqual(withDecisionIds(options!).additionalNodes, expectedNativeFlowNodes('mixed', true));
  });

  it('each message gets its own quality-control decision id', async () => {
    await send(BUTTONS);
    await send(BUTTONS);
    const ids = relayedNodes().map((nodes) => JSON.stringify(nodes).match(/"decision_id":"([0-9a-f]{40})"/)?.[1]);
    assert.equal(ids.length, 2);
    assert.ok(ids[0] && ids[1] && ids[0] !== ids[1], `two decision ids: ${ids.join(', ')}`);
  });
});
