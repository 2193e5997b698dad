import { defaultInstanceFlags, defaultWebhookSettings, requireCapability, type ChannelAdapter, type InstanceRecord, type OutgoingContent } from '@parley/core';
import { toJid } from '@parley/whatsapp-proto';
import { exampleContent, type ChannelFarSide, type ConformanceHost, type InboundRequest } from '@parley/testkit';
import type { SandboxAdapter } from '../src/sandbox.adapter.js';

/** The instance's number and the peer phone's, on one sandbox network. */
export const OWN = '5511900000001';
export const PEER = '5511988887777';

/** A sandbox instance record holding `number`. */
export function sandboxInstance(id: string, number: string): InstanceRecord {
  return {
    id, key: `key-${id}`, name: `sandbox ${number}`, driver: 'sandbox', createdAt: 0, flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(),
    webhookSecret: `whsec_${id}`, user: null, phoneConnected: false, wantsConnection: false, health: 'healthy', driverOptions: { number }, links: {},
  };
}

/** What the peer sends for each inbound kind: the send type whose arrival has that content type. */
function peerContent(request: InboundRequest, ownJid: string): OutgoingContent {
  if (request.kind === 'contacts') return exampleContent('contact', ownJid, request.text);
  if (request.kind === 'reaction') return { type: 'reaction', emoji: '👍', target: { remoteJid: ownJid, fromMe: false, id: request.id } };
  return exampleContent(request.kind, ownJid, request.text);
}

/**
 * The far side of a sandbox instance: a second sandbox phone ({@link PEER}) created by the same
 * driver over the same storage, so both share one simulated network. Scanning goes through the
 * driver's scan route, as a phone scanning the QR does.
 */
export async function sandboxFarSide(host: ConformanceHost): Promise<ChannelFarSide> {
  const record = sandboxInstance('ins_conformance_peer', PEER);
  await host.storage.instances.create(record);
  const peer = await host.driver.create({
    instanceId: record.id, instance: async () => (await host.storage.instances.get(record.id))!, emit: () => {}, storage: host.storage,
    logger: { child() { return this; }, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} },
  }) as SandboxAdapter;
  await peer.connection.connect();
  await peer.connection.scan();
  const ownJid = toJid(OWN, 'own');

  async function connect(adapter: ChannelAdapter): Promise<void> {
    const answer = await requireCapability(adapter, 'connection').connect();
    if (answer.phoneConnected) return;
    const response = await host.route('post', '/:key/scan', { params: { key: (await host.instance()).key }, body: {} });
    if (response.status !== 200) throw new Error(`the scan route answered ${response.status}`);
  }

  return {
    connect: () => connect(host.adapter()),
    async deliverInbound(request) {
      const sent = await requireCapability(peer, 'messaging').send({ to: OWN, content: peerContent(request, ownJid) });
      return sent.key.id;
    },
    async acknowledge(_record, status) {
      // The network reports `sent` and the peer's phone `delivered` on their own; reading the chat sends the read receipt.
      if (status === 'read') await requireCapability(peer, 'chats').markRead(ownJid, true);
    },
    close: () => peer.stop(),
  };
}
