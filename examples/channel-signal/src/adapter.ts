import {
  CapabilityNotSupportedError, recordMessageOf, type CapabilityGaps, type ChannelAdapter, type ChannelCapabilities, type ChannelContext, type ConnectionCapability,
  type ConnectionState, type ConnectResult, type MessageRecord, type MessagingCapability, type PresenceRequest, type SendRequest,
} from '@parley/core';
import { eventsOf, isSignalPush } from './inbound.js';
import type { SignalNetworkApi } from './network-api.js';
import { messageIdOf, signalMessageOf } from './signal-ids.js';

const TEXT_ONLY = 'this example channel sends and receives text only';

/** Why the families this example leaves out are absent (the 422 message says it). */
const GAPS: CapabilityGaps = {
  groups: TEXT_ONLY, communities: TEXT_ONLY, labels: TEXT_ONLY, catalog: TEXT_ONLY, calls: TEXT_ONLY, callReject: TEXT_ONLY, status: TEXT_ONLY,
  chats: TEXT_ONLY, contacts: TEXT_ONLY, profile: TEXT_ONLY, mobile: 'accounts are registered on the network, not through Parley',
};

/**
 * The adapter of one instance's Signal account: a connection (the device session of the account
 * named by the instance's `account` option) and text messaging. Messages and receipts arrive through
 * the driver's receive route, which hands them to {@link SignalAdapter.ingest}.
 */
export class SignalAdapter implements ChannelAdapter {
  readonly channel = 'signal';
  readonly capabilities: ChannelCapabilities;
  readonly capabilityGaps = GAPS;
  private user: ConnectionState['user'] = null;

  constructor(private readonly context: ChannelContext, private readonly api: SignalNetworkApi) {
    this.capabilities = { connection: this.connection(), messaging: this.messaging() };
  }

  async ingest(payload: unknown): Promise<number> {
    if (!isSignalPush(payload) || payload.account !== this.user?.id) return 0;
    const events = await eventsOf(payload, this.context.instanceId, this.context.storage);
    for (const event of events) this.context.emit(event);
    return events.length;
  }

  async stop(): Promise<void> {
    this.user = null;
  }

  private async account(): Promise<string> {
    return String((await this.context.instance()).driverOptions.account);
  }

  private connection(): ConnectionCapability {
    const open = async (): Promise<ConnectResult> => {
      const account = await this.api.connect(await this.account());
      const first = this.user === null;
      this.user = { id: account.uuid, ...(account.name ? { name: account.name } : {}) };
      if (first) this.context.emit({ type: 'connection', status: 'open', code: 200, user: this.user });
      return { phoneConnected: true, qrcode: '', image: '', user: this.user };
    };
    return {
      connect: open,
      requestPairingCode: async () => {
        throw new CapabilityNotSupportedError('signal', 'pairing codes (the account is registered on the network)');
      },
      restart: async () => {
        this.user = null;
        await open();
      },
      resync: async () => undefined,
      logout: async () => {
        this.user = null;
        this.context.emit({ type: 'connection', status: 'close', code: 401, reason: 'logged out', loggedOut: true, willReconnect: false });
      },
      state: () => ({ phoneConnected: this.user !== null, user: this.user, status: this.user ? 'open' : 'disconnected' }),
    };
  }

  private messaging(): MessagingCapability {
    return {
      supports: (type) => type === 'text',
      send: async (request: SendRequest): Promise<MessageRecord> => {
        if (request.content.type !== 'text') throw new CapabilityNotSupportedError('signal', `sending ${request.content.type} messages`);
        const account = this.user?.id ?? await this.account();
        const quote = request.quoted ? signalMessageOf(request.quoted.key.id) : undefined;
        const timestamp = await this.api.send({ account, recipient: request.to, message: request.content.text, ...(quote ? { quote } : {}) });
        const record: MessageRecord = {
          key: { remoteJid: request.to, fromMe: true, id: messageIdOf(account, timestamp) },
          // Records name members as every channel's do (spec 2.4): core builds them from the content.
          message: recordMessageOf(request.content),
          messageTimestamp: String(Math.floor(timestamp / 1000)),
          status: 'PENDING',
          provider: 'signal',
        };
        // The network took it: that is `sent`, reported after the server has queued the record's storage.
        setImmediate(() => this.context.emit({
          type: 'message.status', messageId: record.key.id, chatJid: request.to, recipientId: request.to, status: 'sent', timestamp: Math.floor(timestamp / 1000),
        }));
        return record;
      },
      sendPresence: async (_request: PresenceRequest) => undefined,
    };
  }
}
