import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proto } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { SimError } from '../src/network/errors.js';
import { TestClient, waitFor, useSimulator } from './client.js';

const controlPost = async (sim: RunningSimulator, path: string, body: unknown) => {
  const res = await fetch(`${sim.controlUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() as any };
};

describe('server verdicts: the ninth digit, restricted accounts, group info from phones', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  async function linked(number: string, options: { restricted?: boolean } = {}) {
    const account = sim.simulator.createAccount({ number, ...options });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(account.number, qr));
    return { account, client };
  }

  it('registers a Brazilian mobile under its 8-digit form; refuses what is no 9-digit Brazilian mobile, or taken in either form', async () => {
    const view = sim.simulator.createAccount({ number: '5511987650101', withoutNinthDigit: true });
    assert.deepEqual([view.number, view.jid, view.dialled], ['551187650101', '551187650101@s.whatsapp.net', '5511987650101']);
    assert.equal(sim.simulator.getAccount('5511987650101').number, '551187650101', 'the control API finds it by either form');
    for (const number of ['551187650102', '4411987650102', '5501987650102']) {
      assert.throws(() => sim.simulator.createAccount({ number, withoutNinthDigit: true }), (e: SimError) => e.status === 400 && e.code === 'invalid_number');
    }
    assert.throws(() => sim.simulator.createAccount({ number: '551187650101' }), (e: SimError) => e.status === 409);
    assert.throws(() => sim.simulator.createAccount({ number: '5511987650101' }), (e: SimError) => e.status === 409);
    const before = sim.simulator.listAccounts().length;
    const refused = await controlPost(sim, '/accounts', { number: '5511987650103', withoutNinthDigit: 'yes' });
    assert.deepEqual([refused.status, refused.body.error.code, sim.simulator.listAccounts().length], [400, 'validation_failed', before]);
    const created = await controlPost(sim, '/accounts', { number: '5511987650103', withoutNinthDigit: true, restricted: true });
    assert.deepEqual([created.status, created.body.number, created.body.dialled, created.body.restricted], [201, '551187650103', '5511987650103', true]);
  });

  it('usync answers the 8-digit JID for both forms; a message to the 9-digit JID is acked and reaches nobody', { timeout: 60_000 }, async () => {
    const old = sim.simulator.createAccount({ number: '5511987650111', withoutNinthDigit: true });
    const { client } = await linked('5511987650112');
    const sock = client.sock!;
    assert.deepEqual(await sock.onWhatsApp('5511987650111'), [{ jid: old.jid, exists: true }]);
    assert.deepEqual(await sock.onWhatsApp('551187650111'), [{ jid: old.jid, exists: true }]);
    const ghost = await sock.sendMessage('5511987650111@s.whatsapp.net', { text: 'para o fantasma' });
    await waitFor(() => client.statusOf(ghost!.key.id!) >= proto.WebMessageInfo.Status.SERVER_ACK
      || sim.simulator.stanzas('5511987650112', 'message').some((s) => s.stanza.attrs.id === ghost!.key.id), 'the server to take the ghost message');
    const real = await sock.sendMessage(old.jid, { text: 'para a conta' });
    await waitFor(() => sim.simulator.received(old.number).some((m) => m.id === real!.key.id), 'the message to the 8-digit JID');
    assert.deepEqual(sim.simulator.received('5511987650111').map((m) => m.text), ['para a conta'], 'the 9-digit JID reached nobody');
    assert.ok(client.statusOf(ghost!.key.id!) < proto.WebMessageInfo.Status.DELIVERY_ACK, 'never delivered');
  });

  // The server's verdict is the ack; Baileys' ERROR 463 report of it is proven through Parley (test/e2e/whatsapp-sim-verdicts).
  // Right after linking, Baileys rc14 still buffers its events, and nothing flushes them after a refused send (README).
  it('refuses every message of a restricted account to others with ack error 463 and delivers nothing', { timeout: 60_000 }, async () => {
    const friend = sim.simulator.createAccount({ number: '5511987650122' });
    const { account, client } = await linked('5511987650121', { restricted: true });
    const acks: Array<Record<string, string>> = [];
    client.sock!.ws.on('CB:ack,class:message', (node: { attrs: Record<string, string> }) => acks.push(node.attrs));
    const sent = await client.sock!.sendMessage(friend.jid, { text: 'oi' });
    const group = sim.simulator.createGroup(friend.number, 'Grupo', [account.number]);
    const inGroup = await client.sock!.sendMessage(group.jid, { text: 'no grupo' });
    const errorOf = (id: string) => acks.find((a) => a.id === id)?.error;
    await waitFor(() => errorOf(sent!.key.id!) !== undefined && errorOf(inGroup!.key.id!) !== undefined, 'both acks');
    assert.deepEqual([errorOf(sent!.key.id!), errorOf(inGroup!.key.id!)], ['463', '463']);
    assert.deepEqual(sim.simulator.received(friend.number), []);
  });

  // Baileys reports each notification as a stub message; its groups.update of the same flush keeps only the first change.
  it('a member\'s phone changes the subject, description and settings: the companions get each notification; only admins change settings', { timeout: 60_000 }, async () => {
    const admin = sim.simulator.createAccount({ number: '5511987650132' });
    const { account, client } = await linked('5511987650131');
    const group = sim.simulator.createGroup(admin.number, 'Antes', [account.number]);
    const member = sim.simulator.createAccount({ number: '5511987650133' });
    sim.simulator.updateGroupMembers(admin.number, group.jid, 'add', [member.number]);
    sim.simulator.changeGroup(member.number, group.jid, { subject: 'Depois' });
    sim.simulator.changeGroup(admin.number, group.jid, { description: 'Regras', setting: 'announcement' });
    assert.throws(() => sim.simulator.changeGroup(member.number, group.jid, { subject: 'Nada', setting: 'locked' }), (e: SimError) => e.status === 403 && e.code === 'not_an_admin');
    const bad = await controlPost(sim, `/accounts/${admin.number}/groups/${group.jid}/info`, { setting: 'everything' });
    assert.deepEqual([bad.status, bad.body.error.code, bad.body.error.details.reason], [400, 'validation_failed', 'invalid_change']);
    const empty = await controlPost(sim, `/accounts/${admin.number}/groups/${group.jid}/info`, {});
    assert.deepEqual([empty.status, empty.body.error.code, empty.body.error.details.fields.map((f: { field: string }) => f.field)],
      [400, 'validation_failed', ['body.subject', 'body.description', 'body.setting', 'body.memberAddMode']]);
    const Stub = proto.WebMessageInfo.StubType;
    const stubs = () => client.seen.upserts.filter((m) => m.key.remoteJid === group.jid && m.messageStubType !== Stub.GROUP_CREATE && m.messageStubType !== Stub.GROUP_PARTICIPANT_ADD)
      .map((m) => [m.messageStubType, m.messageStubParameters, m.key.participant]);
    await waitFor(() => stubs().length >= 3, 'the three notifications');
    assert.deepEqual(stubs(), [
      [Stub.GROUP_CHANGE_SUBJECT, ['Depois'], member.jid],
      [Stub.GROUP_CHANGE_DESCRIPTION, ['Regras'], admin.jid],
      [Stub.GROUP_CHANGE_ANNOUNCE, ['on'], admin.jid],
    ]);
    const now = sim.simulator.getGroup(group.jid);
    assert.deepEqual([now.subject, now.description, now.announce, now.restrict], ['Depois', 'Regras', true, false]);
  });
});
