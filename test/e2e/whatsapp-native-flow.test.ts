import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { AccountView, RunningSimulator, SeenStanza, StanzaSummary } from '@parley/whatsapp-sim';
import { useSimulatedWhatsApp, type SimulatedWhatsApp } from '../support/whatsapp-sim.js';

type Api = Awaited<ReturnType<SimulatedWhatsApp['linkByQr']>>['api'];
type Interactive = { header?: { title?: string }; body: { text: string }; nativeFlowMessage: { buttons?: Array<{ name: string }> } };

const PIX = {
  title: 'Pedido 77', text: 'Pague com Pix', referenceId: 'PED77', code: '00020126580014br.gov.bcb.pix0136chave', key: '12345678000199',
  merchantName: 'Acme LTDA', keyType: 'CNPJ', items: [{ id: 'sku-1', name: 'Caneca', price: 19.9, quantity: 2 }], subtotal: 39.8, totalAmount: 39.8,
};

/** Each native-flow send type: its operation, body (without `to`), and what the phone must show of it. */
const SENDS = [
  { operationId: 'sendTitle', body: { title: 'Pedido 41', text: 'Seu pedido saiu', footer: 'Acme' }, title: 'Pedido 41', buttons: [] as string[] },
  {
    operationId: 'sendButtonReply', body: { text: 'Confirma?', buttons: [{ type: 'quick_reply', id: 'sim', text: 'Sim' }, { type: 'quick_reply', id: 'nao', text: 'Não' }] },
    title: undefined, buttons: ['quick_reply', 'quick_reply'],
  },
  {
    operationId: 'sendButtonAction', body: { text: 'Precisa de ajuda?', buttons: [{ type: 'cta_url', text: 'Site', url: 'https://acme.example/ajuda' }, { type: 'cta_copy', text: 'Copiar', copy_code: 'ACME10' }] },
    title: undefined, buttons: ['cta_url', 'cta_copy'],
  },
  { operationId: 'sendPix', body: PIX, title: 'Pedido 77', buttons: ['review_and_pay'] },
] as const;

/**
 * Issue 25, defect 2: interactive native-flow messages sent through Parley's REST API over Baileys' real
 * socket reach the simulated phone (which decrypts them), and the simulator — which refuses a `<biz>`
 * node without what live clients send with ack error 479 (whatsmeow PR #1235) — saw the live shape.
 */
describe('WhatsApp native-flow messages through the simulator, over real HTTP', () => {
  const env = useSimulatedWhatsApp();
  let sim: RunningSimulator;
  let account: AccountView;
  let friend: AccountView;
  let api: Api;
  before(async () => {
    sim = env.sim;
    account = sim.simulator.createAccount({ number: '5511987658001', pushName: 'Acme', business: true });
    friend = sim.simulator.createAccount({ number: '5511987658002', pushName: 'Cliente' });
    ({ api } = await env.linkByQr(account.number, 'native-flow'));
  });

  /** The children of a stanza node as the simulator's stanza log shows them. */
  const children = (node: StanzaSummary): StanzaSummary[] => (Array.isArray(node.content) ? node.content : []);

  /** The `<message>` stanza the simulator saw for message `id`, read over its HTTP control API. */
  async function stanzaOf(id: string): Promise<StanzaSummary> {
    const res = await fetch(`${sim.controlUrl}/accounts/${account.number}/stanzas?tag=message`);
    assert.equal(res.status, 200);
    const found = ((await res.json()) as SeenStanza[]).find((s) => s.stanza.attrs.id === id);
    assert.ok(found, `the simulator saw ${id}`);
    return found.stanza;
  }

  /** Checks the live `<biz>` (attributes, and one quality-control decision) and returns it. */
  function liveBiz(stanza: StanzaSummary): StanzaSummary {
    const biz = children(stanza).find((n) => n.tag === 'biz');
    assert.ok(biz, 'a <biz> node');
    assert.deepEqual([biz.attrs.actual_actors, biz.attrs.host_storage], ['2', '2']);
    assert.ok(Math.abs(Number(biz.attrs.privacy_mode_ts) - Date.now() / 1000) < 600, `privacy_mode_ts ${biz.attrs.privacy_mode_ts} is now`);
    const quality = children(biz).filter((n) => n.tag === 'quality_control');
    assert.equal(quality.length, 1);
    assert.match(quality[0]!.attrs.decision_id ?? '', /^[0-9a-f]{40}$/);
    return biz;
  }

  for (const send of SENDS) {
    it(`${send.operationId}: the phone decrypts it; the server saw <biz> in the live shape and <bot biz_bot="1">`, { timeout: 60_000 }, async () => {
      const sent = await api.call(send.operationId, { body: { to: friend.number, ...send.body } } as never) as { data: { key: { id: string } } };
      const id = sent.data.key.id;
      const got = await env.t.waitFor(() => sim.simulator.received(friend.number).find((m) => m.id === id), 20_000, 'the phone to decrypt it');
      const interactive = got.message.interactiveMessage as Interactive;
      assert.equal(interactive.body.text, send.body.text);
      assert.equal(interactive.header?.title, send.title);
      assert.deepEqual((interactive.nativeFlowMessage.buttons ?? []).map((b) => b.name), send.buttons);
      const stanza = await stanzaOf(id);
      const biz = liveBiz(stanza);
      if (send.operationId === 'sendPix') {
        // Pix is its own flow (the order-details payment flow), not under `mixed`.
        assert.equal(biz.attrs.native_flow_name, 'order_details');
        assert.deepEqual(children(biz).map((n) => n.tag), ['quality_control']);
      } else {
        assert.equal(biz.attrs.native_flow_name, undefined);
        assert.deepEqual(children(biz).find((n) => n.tag === 'interactive'), {
          tag: 'interactive', attrs: { type: 'native_flow', v: '1' }, content: [{ tag: 'native_flow', attrs: { v: '9', name: 'mixed' } }],
        });
      }
      assert.deepEqual(children(stanza).filter((n) => n.tag === 'bot'), [{ tag: 'bot', attrs: { biz_bot: '1' } }]);
    });
  }

  it('buttons into a group: the members\' phones decrypt them; <biz> goes without <bot>', { timeout: 60_000 }, async () => {
    const member = sim.simulator.createAccount({ number: '5511987658003', pushName: 'Bia' });
    const group = (await api.call('createGroup', { body: { name: 'Clientes', participants: [member.number] } })).data;
    const sent = await api.call('sendButtonReply', { body: { to: group.id, text: 'Quem vem?', buttons: [{ type: 'quick_reply', id: 'eu', text: 'Eu' }] } });
    const got = await env.t.waitFor(() => sim.simulator.received(member.number).find((m) => m.id === sent.data.key.id), 20_000, 'the member\'s phone to decrypt it');
    assert.equal(got.group, group.id);
    assert.equal((got.message.interactiveMessage as Interactive).body.text, 'Quem vem?');
    const stanza = await stanzaOf(sent.data.key.id);
    liveBiz(stanza);
    assert.deepEqual(children(stanza).filter((n) => n.tag === 'bot'), []);
  });
});
