import type { DeliveryStatus, MessageRecord } from '@parley/core';
import type { ChannelFarSide, ConformanceHost, InboundRequest } from '@parley/testkit';
import type { SignalPush } from '../src/index.js';
import type { MockSignalNetwork } from '../src/testing/index.js';

/**
 * The far side of the Signal example for `describeChannelConformance`: the mock network answers
 * connects and sends, and the peer's messages and receipts arrive as pushes posted to the driver's
 * own `POST /receive/:instanceId` route, as the network delivers them.
 */
export function signalFarSide(options: { network: MockSignalNetwork; account: string; peer: string }): (host: ConformanceHost) => ChannelFarSide {
  const { network, account, peer } = options;
  return (host) => {
    const push = async (envelope: SignalPush['envelope']) => {
      const instance = await host.instance();
      const answer = await host.route('post', '/receive/:instanceId', { params: { instanceId: instance.id }, body: { account, envelope } });
      if (answer.status !== 200) throw new Error(`the receive route answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    };
    return {
      async connect() {
        network.addAccount(account, 'Conformance');
        network.addAccount(peer, 'Peer');
        await host.adapter().capabilities.connection!.connect();
      },
      async deliverInbound(request: InboundRequest) {
        if (request.kind !== 'text') throw new Error(`a Signal peer does not send ${request.kind} here`);
        const timestamp = network.nextTimestamp();
        await push({ source: peer, sourceName: 'Peer', timestamp, dataMessage: { message: request.text } });
        return `${timestamp}.${peer}`;
      },
      async acknowledge(record: MessageRecord, status: DeliveryStatus) {
        // The channel reports `sent` itself when the network takes a send; the peer's receipts bring the rest.
        if (status === 'sent') return;
        const timestamp = Number(record.key.id.split('.')[0]);
        await push({ source: peer, timestamp: network.nextTimestamp(), receiptMessage: { type: status === 'read' ? 'READ' : 'DELIVERY', timestamps: [timestamp] } });
      },
    };
  };
}
