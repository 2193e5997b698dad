import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proto, type BinaryNode } from '@whiskeysockets/baileys';
import type { RunningSimulator, SeenStanza, StanzaSummary } from '../src/index.js';
import { bizRefusal } from '../src/features/message-stanzas.js';
import { TestClient, waitFor, useSimulator } from './client.js';

const BUTTONS: proto.IMessage = {
  interactiveMessage: {
    body: { text: 'Confirma o pedido?' },
    nativeFlowMessage: { buttons: [{ name: 'quick_reply', buttonParamsJson: '{"display_text":"Sim","id":"sim"}' }], messageVersion: 1 },
  },
};

const mixed = (): BinaryNode => ({ tag: 'interactive', attrs: { type: 'native_flow', v: '1' }, content: [{ tag: 'native_flow', attrs: { v: '9', name: 'mixed' } }] });
const quality = (): BinaryNode => ({ tag: 'quality_control', attrs: { decision_id: 'ab'.repeat(20), source_type: 'third_party' } });
const LIVE_ATTRS = { actual_actors: '2', host_storage: '2', privacy_mode_ts: '1764400000' };
/** The `<biz>` Parley sent before issue 25, defect 2: no attributes, no `<quality_control>`. */
const BARE: BinaryNode = { tag: 'biz', attrs: {}, content: [mixed()] };
const LIVE: BinaryNode = { tag: 'biz', attrs: LIVE_ATTRS, content: [mixed(), quality()] };
const stanza = (...nodes: BinaryNode[]): BinaryNode => ({ tag: 'message', attrs: { id: 'X', to: 'y@s.whatsapp.net' }, content: [{ tag: 'enc', attrs: {} }, ...nodes] });

describe('business stanzas: the <biz> node of interactive messages (whatsmeow PR #1235)', () => {
  it('judges the <biz> node as WhatsApp does', () => {
    assert.equal(bizRefusal(stanza()), undefined, 'no <biz>: taken (the server cannot read the message)');
    assert.equal(bizRefusal(stanza(LIVE, { tag: 'bot', attrs: { biz_bot: '1' } })), undefined);
    assert.equal(bizRefusal(stanza({ tag: 'biz', attrs: { ...LIVE_ATTRS, native_flow_name: 'order_details' }, content: [quality()] })), undefined);
    assert.equal(bizRefusal(stanza(BARE)), '<biz> lacks actual_actors, host_storage, privacy_mode_ts');
    assert.equal(bizRefusal(stanza({ tag: 'biz', attrs: { native_flow_name: 'order_details' } })), '<biz> lacks actual_actors, host_storage, privacy_mode_ts');
    assert.equal(bizRefusal(stanza({ tag: 'biz', attrs: { ...LIVE_ATTRS, privacy_mode_ts: 'now' }, content: [mixed(), quality()] })), '<biz> lacks privacy_mode_ts');
    assert.equal(bizRefusal(stanza({ tag: 'biz', attrs: LIVE_ATTRS, content: [mixed()] })), '<biz> lacks <quality_control decision_id>');
    assert.equal(bizRefusal(stanza({ tag: 'biz', attrs: LIVE_ATTRS, content: [{ tag: 'interactive', attrs: { type: 'native_flow', v: '1' } }, quality()] })),
      '<interactive> lacks a <native_flow name v>');
    assert.equal(bizRefusal(stanza({ tag: 'biz', attrs: LIVE_ATTRS, content: [{ ...mixed(), attrs: { type: 'native_flow' } }, quality()] })),
      '<interactive type="native_flow"> must have v="1"');
  });

  describe('over the unmodified Baileys socket', () => {
    let sim: RunningSimulator;
    useSimulator((started) => { sim = started; });

    async function linked(me: string, friend: string) {
      const account = sim.simulator.createAccount({ number: me, business: true });
      const peer = sim.simulator.createAccount({ number: friend });
      const client = new TestClient(sim.url);
      await client.link((qr) => sim.simulator.scanQr(account.number, qr));
      return { account, peer, client };
    }
    /** The children of the `<message>` stanza `id` the clients of `number` sent, as the stanza log shows them (ciphertexts aside). */
    const childrenOf = (stanza: StanzaSummary | undefined): StanzaSummary[] =>
      (Array.isArray(stanza?.content) ? stanza.content : []).filter((n) => !['enc', 'participants', 'device-identity'].includes(n.tag));
    const seen = (number: string, id: string): StanzaSummary | undefined =>
      sim.simulator.stanzas(number, 'message').find((s) => s.stanza.attrs.id === id)?.stanza;

    it('refuses buttons with the bare <biz> with ack error 479: Baileys reports ERROR 479, the phone gets nothing', { timeout: 60_000 }, async () => {
      const { account, peer, client } = await linked('5511987659001', '5511987659002');
      const id = await client.sock!.relayMessage(peer.jid, BUTTONS, { additionalNodes: [BARE] });
      await waitFor(() => client.seen.messageUpdates.some((u) => u.key.id === id && u.update.status === proto.WebMessageInfo.Status.ERROR), 'the error ack');
      const update = client.seen.messageUpdates.find((u) => u.key.id === id && u.update.status === proto.WebMessageInfo.Status.ERROR)!;
      assert.deepEqual(update.update.messageStubParameters, ['479']);
      assert.deepEqual(childrenOf(seen(account.number, id)), [{ tag: 'biz', attrs: {}, content: [{ tag: 'interactive', attrs: { type: 'native_flow', v: '1' }, content: [{ tag: 'native_flow', attrs: { v: '9', name: 'mixed' } }] }] }]);
      // A text afterwards still goes through, so nothing of the refused one was merely late.
      const text = await client.sock!.sendMessage(peer.jid, { text: 'depois' });
      await waitFor(() => sim.simulator.received(peer.number).some((m) => m.id === text!.key.id), 'the text after it');
      assert.equal(sim.simulator.received(peer.number).some((m) => m.id === id), false);
      client.end();
    });

    it('takes the live shape: the phone decrypts the buttons, the control API shows the <biz> and <bot> nodes', { timeout: 60_000 }, async () => {
      const { account, peer, client } = await linked('5511987659011', '5511987659012');
      const id = await client.sock!.relayMessage(peer.jid, BUTTONS, { additionalNodes: [LIVE, { tag: 'bot', attrs: { biz_bot: '1' } }] });
      await waitFor(() => sim.simulator.received(peer.number).some((m) => m.id === id), 'the phone to decrypt it');
      const got = sim.simulator.received(peer.number).find((m) => m.id === id)!;
      assert.equal((got.message.interactiveMessage as { body: { text: string } }).body.text, 'Confirma o pedido?');
      await waitFor(() => client.statusOf(id) === proto.WebMessageInfo.Status.DELIVERY_ACK, 'the delivery receipt');
      const res = await fetch(`${sim.controlUrl}/accounts/${account.number}/stanzas?tag=message`);
      const stanzas = (await res.json()) as SeenStanza[];
      const mine = stanzas.find((s) => s.stanza.attrs.id === id)!.stanza;
      assert.equal(mine.attrs.to, peer.jid);
      assert.deepEqual(childrenOf(mine).filter((n) => n.tag === 'biz' || n.tag === 'bot'), [
        { tag: 'biz', attrs: LIVE_ATTRS, content: [mixed(), quality()] }, { tag: 'bot', attrs: { biz_bot: '1' } },
      ]);
      client.end();
    });
  });
});
