import { createHash } from 'node:crypto';
import type { LinkedAccount } from '../channel/adapter.js';
import type { ChannelName } from '../domain/channel-name.js';
import type { InstanceRecord, SocialLink } from '../domain/instance.js';
import { KeyedSerialQueue } from '../util/keyed-serial-queue.js';
import type { InstanceRepository, StateRepository } from './repositories.js';

/** Outside every instance's `<id>:` prefix, so deleting one instance's state leaves the index whole. */
const ACCOUNTS = (channel: string) => `parley.linked-accounts:${channel}`;
const VERIFY_TOKENS = (channel: string) => `parley.verify-tokens:${channel}`;
const META = 'parley.linked-accounts';
const BUILT = 'built-v1';

interface AccountEntry { instanceId: string }
interface TokenEntry { accounts: string[] }

/** The token as the index keys it: its SHA-256, so the store never holds it and lookups leak no timing about it. */
function tokenKey(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The index of linked social accounts, kept in the state store: which instance links an account id
 * on a channel, and which verify tokens are linked. Inbound webhooks find their instance with one
 * keyed read instead of listing every instance, so their cost does not grow with the number of
 * instances. The server keeps it current on link, unlink and delete (and builds it once from the
 * instance records of a store written before it existed); driver test harnesses use it the same way.
 */
export class LinkedAccountIndex {
  // Verify-token entries are read-modify-write: writes of one token are serialized.
  private readonly queue = new KeyedSerialQueue();

  constructor(private readonly state: StateRepository, private readonly instances: Pick<InstanceRepository, 'get'>) {}

  /**
   * The instance linking `accountId` on `channel`, with its link, or null. The record is read by id
   * and its link compared, so an entry left behind by a crash between two writes answers null.
   */
  async find(channel: ChannelName, accountId: string): Promise<LinkedAccount | null> {
    const entry = await this.state.get<AccountEntry>(ACCOUNTS(channel), accountId);
    if (!entry) return null;
    const record = await this.instances.get(entry.instanceId);
    const link = record?.links[channel];
    return record && link?.accountId === accountId ? { instanceId: record.id, link } : null;
  }

  /** True when some linked account of `channel` has this verify token. */
  async hasVerifyToken(channel: ChannelName, token: string): Promise<boolean> {
    const entry = await this.state.get<TokenEntry>(VERIFY_TOKENS(channel), tokenKey(token));
    return (entry?.accounts.length ?? 0) > 0;
  }

  /** Records a link of `instanceId` (after the instance record holds it). */
  async add(instanceId: string, link: SocialLink): Promise<void> {
    await this.state.put(ACCOUNTS(link.channel), link.accountId, { instanceId } satisfies AccountEntry);
    await this.updateToken(link, (accounts) => [...new Set([...accounts, link.accountId])]);
  }

  /** Forgets a link of `instanceId` (after the instance record dropped it); entries another instance took over stay. */
  async remove(instanceId: string, link: SocialLink): Promise<void> {
    const entry = await this.state.get<AccountEntry>(ACCOUNTS(link.channel), link.accountId);
    if (entry?.instanceId !== instanceId) return;
    await this.state.delete(ACCOUNTS(link.channel), link.accountId);
    await this.updateToken(link, (accounts) => accounts.filter((account) => account !== link.accountId));
  }

  /**
   * Builds the index from the instance records, once per store: a store written before the index
   * existed gets it at its first start. Answers whether it had to build.
   */
  async buildOnce(records: () => Promise<InstanceRecord[]>): Promise<boolean> {
    if (await this.state.get(META, BUILT)) return false;
    for (const record of await records()) {
      for (const link of Object.values(record.links)) if (link) await this.add(record.id, link);
    }
    await this.state.put(META, BUILT, true);
    return true;
  }

  private updateToken(link: SocialLink, change: (accounts: string[]) => string[]): Promise<void> {
    const key = tokenKey(link.verifyToken);
    return this.queue.run(`${link.channel}:${key}`, async () => {
      const current = (await this.state.get<TokenEntry>(VERIFY_TOKENS(link.channel), key))?.accounts ?? [];
      const next = change(current);
      if (next.length === 0) await this.state.delete(VERIFY_TOKENS(link.channel), key);
      else await this.state.put(VERIFY_TOKENS(link.channel), key, { accounts: next } satisfies TokenEntry);
    });
  }
}
