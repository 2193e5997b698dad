import { ConflictError, type ChatsCapability, type PrivacySettings } from '@parley/core';
import type { SandboxDevice } from '../sandbox-device.js';

/** Privacy settings of a fresh sandbox account (WhatsApp's categories and defaults). */
export const DEFAULT_PRIVACY: PrivacySettings = {
  readreceipts: 'all', profile: 'all', status: 'contacts', online: 'all', last: 'all', groupadd: 'all', calladd: 'all', messages: 'all',
};

/**
 * Chat management on the sandbox: changes are emitted as chat events (the server's projector stores
 * them), and reading a chat sends read receipts to the senders.
 */
export class SandboxChats implements ChatsCapability {
  constructor(private readonly device: SandboxDevice) {}

  private ensureConnected(): void {
    if (!this.device.connected) throw new ConflictError('the instance is not connected', 'not_connected');
  }

  async markRead(jid: string, read: boolean): Promise<void> {
    this.ensureConnected();
    if (read) await this.device.readChat(jid);
    this.device.ctx.emit({ type: 'chats.upsert', chats: [{ id: jid, unreadCount: read ? 0 : 1 }] });
  }

  async pin(jid: string, pinned: boolean): Promise<void> {
    this.ensureConnected();
    this.device.ctx.emit({ type: 'chats.upsert', chats: [{ id: jid, pinned }] });
  }

  async delete(jid: string): Promise<void> {
    this.ensureConnected();
    this.device.ctx.emit({ type: 'chats.delete', jids: [jid] });
  }

  async subscribePresence(jid: string): Promise<void> {
    this.ensureConnected();
    const { storage } = this.device.ctx;
    const list = (await storage.state.get<string[]>(this.device.namespace, 'presence-subscriptions')) ?? [];
    if (!list.includes(jid)) await storage.state.put(this.device.namespace, 'presence-subscriptions', [...list, jid]);
  }

  async setDisappearing(jid: string, expiration: number): Promise<void> {
    this.ensureConnected();
    this.device.ctx.emit({ type: 'chats.upsert', chats: [{ id: jid, ephemeralExpiration: expiration }] });
  }

  async privacy(): Promise<PrivacySettings> {
    this.ensureConnected();
    return (await this.device.ctx.storage.state.get<PrivacySettings>(this.device.namespace, 'privacy')) ?? { ...DEFAULT_PRIVACY };
  }
}
