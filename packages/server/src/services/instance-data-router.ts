import {
  repositoriesOf, ServiceUnavailableError, setStatuses, STORAGE_KEYS, type Chat, type Contact, type ExternalDataStore, type MessageRecord,
  type MessageRepository, type MessageStatus, type Page, type PageRequest, type Storage, type StorageHealth, type StorageSignals, type StatusUpdate,
} from '@parley/core';

/**
 * Keeps track of which instances have an external database attached (spec 4.1 `/instance/mongodb`).
 * An instance whose record names one that is not connected yet is refused with 503 rather than
 * silently written to the main storage.
 */
class Attachments {
  readonly stores = new Map<string, ExternalDataStore>();
  readonly pending = new Set<string>();

  pick(instance: string): ExternalDataStore | undefined {
    const store = this.stores.get(instance);
    if (store) return store;
    if (this.pending.has(instance)) throw new ServiceUnavailableError('the external database of this instance is not connected yet');
    return undefined;
  }
}

class RoutedMessages implements MessageRepository {
  constructor(private readonly base: MessageRepository, private readonly a: Attachments) {}
  private r(instance: string): MessageRepository {
    return this.a.pick(instance)?.messages ?? this.base;
  }
  upsert(instance: string, record: MessageRecord) { return this.r(instance).upsert(instance, record); }
  get(instance: string, id: string) { return this.r(instance).get(instance, id); }
  setStatus(instance: string, id: string, status: MessageStatus): Promise<boolean> { return this.r(instance).setStatus(instance, id, status); }
  setStatuses(instance: string, updates: readonly StatusUpdate[]): Promise<boolean[]> { return setStatuses(this.r(instance), instance, updates); }
  listByChat(instance: string, chatJid: string, page: PageRequest): Promise<Page<MessageRecord>> { return this.r(instance).listByChat(instance, chatJid, page); }
  delete(instance: string, ids: string[]) { return this.r(instance).delete(instance, ids); }
  deleteChat(instance: string, chatJid: string) { return this.r(instance).deleteChat(instance, chatJid); }
  clear(instance: string) { return this.r(instance).clear(instance); }
}

/** The shape chat and contact repositories share: resources merged field by field, keyed by id per instance. */
interface ResourceRepository<T extends { id: string }> {
  upsert(instance: string, resource: Partial<T> & { id: string }): Promise<T>;
  get(instance: string, id: string): Promise<T | null>;
  list(instance: string): Promise<T[]>;
  delete(instance: string, id: string): Promise<boolean>;
  clear(instance: string): Promise<void>;
}

/** Chats or contacts: those of an attached external database there, the rest in the main storage. */
class RoutedResources<T extends { id: string }> implements ResourceRepository<T> {
  constructor(private readonly base: ResourceRepository<T>, private readonly attached: (instance: string) => ResourceRepository<T> | undefined) {}
  private r(instance: string): ResourceRepository<T> {
    return this.attached(instance) ?? this.base;
  }
  upsert(instance: string, resource: Partial<T> & { id: string }) { return this.r(instance).upsert(instance, resource); }
  get(instance: string, id: string) { return this.r(instance).get(instance, id); }
  list(instance: string) { return this.r(instance).list(instance); }
  delete(instance: string, id: string) { return this.r(instance).delete(instance, id); }
  clear(instance: string) { return this.r(instance).clear(instance); }
}

/** The members of {@link Storage} the router takes from the back end as they are: every repository is declared by {@link Storage}. */
export interface InstanceDataRouter extends Storage {}

/**
 * The storage the server uses: the configured back end, except that messages, chats and contacts of
 * an instance with an attached external database go there. Its repositories are derived from
 * {@link STORAGE_KEYS}: the routed ones replaced, every other one the back end's own.
 */
export class InstanceDataRouter {
  private readonly attachments = new Attachments();
  readonly name: string;
  readonly location?: string;
  /** The back end's signals among servers, when it has them. */
  readonly signals?: () => StorageSignals;

  constructor(private readonly base: Storage) {
    this.name = base.name;
    if (base.location !== undefined) this.location = base.location;
    if (base.signals) this.signals = () => base.signals!();
    const routed: Pick<Storage, 'messages' | 'chats' | 'contacts'> = {
      messages: new RoutedMessages(base.messages, this.attachments),
      chats: new RoutedResources<Chat>(base.chats, (instance) => this.attachments.pick(instance)?.chats),
      contacts: new RoutedResources<Contact>(base.contacts, (instance) => this.attachments.pick(instance)?.contacts),
    };
    const own = routed as Partial<Storage>;
    Object.assign(this, repositoriesOf(base, STORAGE_KEYS, (key, repository) => own[key] ?? repository));
  }

  /** Marks an instance as bound to an external database that is being connected. */
  expect(instance: string): void {
    if (!this.attachments.stores.has(instance)) this.attachments.pending.add(instance);
  }

  /** Routes an instance's history to `store` from now on (closing a previous one). */
  async attach(instance: string, store: ExternalDataStore): Promise<void> {
    const previous = this.attachments.stores.get(instance);
    this.attachments.stores.set(instance, store);
    this.attachments.pending.delete(instance);
    if (previous && previous !== store) await previous.close();
  }

  /** Routes an instance's history back to the main storage. */
  async detach(instance: string): Promise<void> {
    const store = this.attachments.stores.get(instance);
    this.attachments.stores.delete(instance);
    this.attachments.pending.delete(instance);
    await store?.close();
  }

  init(): Promise<void> {
    return this.base.init();
  }

  health(): Promise<StorageHealth> {
    return this.base.health();
  }

  flush(): Promise<void> {
    return this.base.flush();
  }

  onDiscard(listener: () => void): void {
    this.base.onDiscard?.(listener);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.attachments.stores.values()].map((s) => s.close()));
    this.attachments.stores.clear();
    await this.base.close();
  }
}
