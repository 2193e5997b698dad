import type { InstanceRecord } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { describeChannelConformance, instanceRecord } from '@parley/testkit';
import { createSignalDriver } from '../src/index.js';
import { MockSignalNetwork } from '../src/testing/index.js';
import { signalFarSide } from './conformance-far-side.js';

const ACCOUNT = '0b6f3f6e-4d57-4c1e-9a51-6d8d4a1c2e01';
const PEER = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

let network: MockSignalNetwork | undefined;

function instance(): InstanceRecord {
  return instanceRecord({ id: 'ins_conformance_signal', name: 'conformance', driver: 'signal', driverOptions: { account: ACCOUNT } });
}

describeChannelConformance('signal', {
  declares: {
    capabilities: ['connection', 'messaging'],
    sends: { text: 'extendedTextMessage' },
    statuses: ['sent', 'delivered', 'read'],
    inbound: ['text'],
    peer: { to: PEER, chatJid: PEER },
    echoesSends: false,
  },
  async start() {
    network ??= await MockSignalNetwork.start();
    const storage = new MemoryStorage();
    await storage.init();
    return {
      driver: createSignalDriver({ apiBaseUrl: network.url, timeoutMs: 5_000 }),
      storage,
      instance: instance(),
      farSide: signalFarSide({ network, account: ACCOUNT, peer: PEER }),
    };
  },
  async cleanup() {
    await network?.close();
  },
});
