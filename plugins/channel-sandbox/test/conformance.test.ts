import { WHATSAPP_RECORD_MEMBERS } from '@parley/channel-baileys/testing';
import { describeChannelConformance } from '@parley/testkit';
import { MemoryStorage } from '@parley/storage-memory';
import { SandboxDriver } from '../src/sandbox.driver.js';
import { defaultSandboxOptions } from '../src/sandbox.options.js';
import { OWN, PEER, sandboxFarSide, sandboxInstance } from './conformance-far-side.js';

const silent = { child() { return silent; }, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };

describeChannelConformance('sandbox', {
  declares: {
    capabilities: ['connection', 'mobile', 'profile', 'messaging', 'chats', 'calls', 'labels', 'contacts', 'groups', 'communities', 'catalog', 'status'],
    sends: WHATSAPP_RECORD_MEMBERS,
    statuses: ['sent', 'delivered', 'read'],
    inbound: ['text', 'image', 'audio', 'video', 'document', 'sticker', 'location', 'contacts', 'reaction'],
    peer: { to: PEER, chatJid: `${PEER}@s.whatsapp.net` },
    echoesSends: true,
  },
  async start() {
    const storage = new MemoryStorage();
    await storage.init();
    return {
      driver: new SandboxDriver({ options: defaultSandboxOptions, host: { dataDir: '', publicUrl: 'http://127.0.0.1', allowPrivateUrls: false }, logger: silent }),
      storage,
      instance: sandboxInstance('ins_conformance_own', OWN),
      farSide: sandboxFarSide,
    };
  },
});
