import type { Readable } from 'node:stream';
import type { Fence } from '../cluster/cluster-store.js';
import type { InstanceRecord } from '../domain/instance.js';
import type { MediaBlob, MediaObject, MessageRecord, MessageStatus } from '../domain/message.js';
import type { Chat, Contact, ContactChange } from '../domain/resources.js';
import { ConflictError } from '../errors.js';
import type { AuthStateEntry, ScanPage, ScanRequest } from './scan.js';

/**
 * A value one instance holds exclusively within a namespace: the sandbox's phone number is
 * `{ namespace: 'sandbox:number', value: '5511…' }`. Back ends index claims natively (a UNIQUE
 * table, a Redis hash, a Map, a unique MongoDB index), so checking uniqueness costs the same at 10
 * instances and at 100,000.
 */
export interface UniqueClaim {
  namespace: string;
  value: string;
}

/**
 * Thrown by {@link InstanceRepository.create} when another instance holds one of the claims. Nothing
 * of the refused creation remains. It is a 409 ConflictError; callers map it to their own message.
 */
export class UniqueClaimConflictError extends ConflictError {
  constructor(readonly claim: UniqueClaim) {
    super(`${claim.namespace} ${claim.value} is held by another instance`, 'claim_taken');
  }
}

/**
 * Instances and their settings, by public id. Every other repository takes that id as its `instance`
 * partition. Keys are secrets: repositories never log them.
 */
export interface InstanceRepository {
  /**
   * Inserts a new instance together with the values it holds exclusively, in one atomic write:
   * either the record and every claim are stored, or nothing is. Throws ConflictError when the id or
   * the key exists, and {@link UniqueClaimConflictError} when another instance holds a claim (of two
   * concurrent creations claiming one value, exactly one succeeds).
   */
  create(record: InstanceRecord, claims?: readonly UniqueClaim[]): Promise<void>;
  get(id: string): Promise<InstanceRecord | null>;
  /** Looks an instance up by its secret key (an indexed lookup, not a scan). */
  findByKey(key: string): Promise<InstanceRecord | null>;
  /**
   * Adds claims to an existing instance, all or none (for records created before their driver declared
   * them). Claims the instance already holds are kept. Throws {@link UniqueClaimConflictError} when
   * another instance holds one, NotFoundError for an unknown id.
   */
  claim(id: string, claims: readonly UniqueClaim[]): Promise<void>;
  /** The id of the instance holding `value` in `namespace`, or null (an indexed lookup, not a scan). */
  claimHolder(namespace: string, value: string): Promise<string | null>;
  /** Every instance, oldest first. For restore at start; request paths use {@link listPage}. */
  list(): Promise<InstanceRecord[]>;
  /**
   * Up to `limit` instances in creation order, after the position `after` (a `next` of a previous
   * page; absent for the first page). `next` is present when more instances follow. Costs the page,
   * not the number of instances (an index range).
   */
  listPage(request: InstancePageRequest): Promise<InstancePage>;
  /** Shallow-merges `patch` and answers the new record. Throws NotFoundError for an unknown id. */
  update(id: string, patch: Partial<Omit<InstanceRecord, 'id'>>): Promise<InstanceRecord>;
  /** Deletes the record and releases its claims. Answers false when there was nothing to delete. */
  delete(id: string): Promise<boolean>;
  /**
   * Optional enumeration (for `parley storage copy`): every claim the instance holds, ordered by
   * namespace then value; empty for an unknown id.
   */
  claimsOf?(id: string): Promise<UniqueClaim[]>;
}

/** A page request of {@link InstanceRepository.listPage}. */
export interface InstancePageRequest {
  limit: number;
  /** Position after which the page starts: a decimal integer a previous page answered as `next`. */
  after?: string;
}

/** One page of instances in creation order. */
export interface InstancePage {
  items: InstanceRecord[];
  /** Position of the last item, to pass as `after`; absent on the last page. */
  next?: string;
}

/** One page of a listing. */
export interface Page<T> {
  items: T[];
  total: number;
}

/** Paging of spec 4.5: `page` starts at 1. */
export interface PageRequest {
  page: number;
  limit: number;
}

/** Message history of every instance. */
/** One status change of a message (see {@link MessageRepository.setStatuses}). */
export interface StatusUpdate {
  id: string;
  status: MessageStatus;
}

/**
 * Applies `updates` to an instance's messages as {@link MessageRepository.setStatus} calls in order:
 * in one operation when the repository has `setStatuses`, one call each otherwise. Answers, per
 * update, whether the message exists.
 */
export async function setStatuses(messages: MessageRepository, instance: string, updates: readonly StatusUpdate[]): Promise<boolean[]> {
  if (messages.setStatuses) return messages.setStatuses(instance, updates);
  const out: boolean[] = [];
  for (const { id, status } of updates) out.push(await messages.setStatus(instance, id, status));
  return out;
}

/**
 * Stores records of an instance as {@link MessageRepository.upsert} calls in the order given (an id
 * given twice: the later record stands, in the earlier one's place among equal timestamps), issued
 * together as the store projector issues a run's writes (a back end may write the calls of one turn
 * in one statement: PostgreSQL does); fails with the first failure once every call is over.
 */
export async function upsertMessages(messages: MessageRepository, instance: string, records: readonly MessageRecord[]): Promise<void> {
  const outcomes = await Promise.allSettled(records.map((record) => messages.upsert(instance, record)));
  for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
}

/**
 * The records of an instance with these ids, in the order given (null for an unknown id): one `get`
 * each, issued together (a back end may read the calls of one turn in one statement: PostgreSQL does).
 */
export function getMessages(messages: MessageRepository, instance: string, ids: readonly string[]): Promise<(MessageRecord | null)[]> {
  return Promise.all(ids.map((id) => messages.get(instance, id)));
}

export interface MessageRepository {
  /** Inserts or replaces the record with the same `key.id` in this instance. */
  upsert(instance: string, record: MessageRecord): Promise<void>;
  get(instance: string, id: string): Promise<MessageRecord | null>;
  /**
   * Moves a message's status forward (by {@link MESSAGE_STATUS_RANK}); `ERROR` always applies. Answers
   * whether the message exists (moved or not). Receipts call this two or three times per message, so
   * it answers no record: read one with {@link get}.
   */
  setStatus(instance: string, id: string, status: MessageStatus): Promise<boolean>;
  /**
   * Optional: several {@link setStatus} calls of one instance in one operation, applied in the order
   * given (the same id may appear more than once), with what each would answer. For back ends where
   * each call is a round trip (Redis): the server hands it the receipts that queued up for an
   * instance. Call it through {@link setStatuses}, which falls back to one `setStatus` per update.
   */
  setStatuses?(instance: string, updates: readonly StatusUpdate[]): Promise<boolean[]>;
  /**
   * Messages of one chat, newest first (by numeric timestamp, then first insertion order), with the
   * chat's exact message count as `total`. Should cost the page, not the chat's size nor the page's
   * depth (issue 26): keep each chat's count in the same atomic write as its messages (never a count
   * per read) and reach page N by seeking an index (SQLite's blocks of known size, a Redis sorted
   * set's rank), never by skipping N - 1 pages of rows. SQLite, Redis and memory do; MongoDB, which
   * runs without transactions, still skips (its README). The conformance suite checks totals and
   * pages under inserts anywhere in the order, replaces, moves between chats, deletes and concurrent
   * writers.
   */
  listByChat(instance: string, chatJid: string, page: PageRequest): Promise<Page<MessageRecord>>;
  /** Deletes the given ids; answers how many existed. */
  delete(instance: string, ids: string[]): Promise<number>;
  deleteChat(instance: string, chatJid: string): Promise<number>;
  clear(instance: string): Promise<void>;
  /**
   * Optional enumeration (for `parley storage copy`): every message of the instance, chat after chat
   * (in an order of chats the back end chooses), each chat's oldest first — the reverse of
   * {@link listByChat}'s order, by timestamp then first insertion — so that upserting them in the order
   * read reproduces every chat's order, ties included. Costs the page (a range of the chat order's
   * index), not the history's size.
   */
  scan?(instance: string, request: ScanRequest): Promise<ScanPage<MessageRecord>>;
}

/** Chats (spec 2.5), fed by events. */
export interface ChatRepository {
  /** Merges the given fields into the chat, creating it with defaults (`name` = id, zeros) when new. */
  upsert(instance: string, chat: Partial<Chat> & { id: string }): Promise<Chat>;
  get(instance: string, id: string): Promise<Chat | null>;
  /** Every chat, most recent activity first. */
  list(instance: string): Promise<Chat[]>;
  delete(instance: string, id: string): Promise<boolean>;
  clear(instance: string): Promise<void>;
  /**
   * Optional enumeration (for `parley storage copy`): the instance's chats in keyset pages ordered by
   * id (code units); the position is the last chat's id. Costs the page (a range of the (instance, id)
   * key), not the number of chats.
   */
  scan?(instance: string, request: ScanRequest): Promise<ScanPage<Chat>>;
}

/** Contacts (spec 2.6), fed by events and the contacts API. */
export interface ContactRepository {
  /** Merges the given fields, creating the contact with empty `name`/`notify` when new; `imgUrl: null` removes the stored picture URL. */
  upsert(instance: string, contact: ContactChange): Promise<Contact>;
  get(instance: string, id: string): Promise<Contact | null>;
  /** Every contact, ordered by id. */
  list(instance: string): Promise<Contact[]>;
  delete(instance: string, id: string): Promise<boolean>;
  clear(instance: string): Promise<void>;
  /** Optional enumeration (for `parley storage copy`): as {@link ChatRepository.scan}, for contacts. */
  scan?(instance: string, request: ScanRequest): Promise<ScanPage<Contact>>;
}

/** Media bytes of messages (spec 4.4), keyed by message id (or by an upload's id). */
export interface MediaRepository {
  put(instance: string, messageId: string, blob: MediaBlob): Promise<void>;
  get(instance: string, messageId: string): Promise<MediaBlob | null>;
  /**
   * Optional streaming read: the blob's description and a stream of its bytes, without reading it
   * whole (the object store's). Null when there is no such blob. Failing to reach the store before
   * the first byte throws as `get` does (ServiceUnavailableError, 503); a failure later errors the
   * stream. Readers of back ends without it use `get` ({@link readMedia}).
   */
  open?(instance: string, messageId: string): Promise<MediaObject | null>;
  /**
   * Optional streaming write: stores the bytes `body` yields as they arrive, without holding them
   * whole, and answers how many there were. When `body` errors, or the store fails, nothing is
   * stored under the id and the promise rejects. Writers of back ends without it collect the bytes
   * and call `put` ({@link writeMedia}).
   */
  putStream?(instance: string, messageId: string, body: Readable, description: { mimetype: string; fileName?: string }): Promise<number>;
  /**
   * Optional (object stores): an address from which any HTTP client can download the blob for a
   * limited time (a presigned GET), for GET media to redirect to. Null when the blob is absent or the
   * store is configured not to hand such addresses out; then the caller serves the blob itself.
   */
  presignGet?(instance: string, messageId: string): Promise<string | null>;
  /**
   * Removes one blob, its bytes and its description, so that `get` answers null; answers whether
   * it existed. Other instances' blobs of the same id are untouched.
   */
  delete(instance: string, messageId: string): Promise<boolean>;
  clear(instance: string): Promise<void>;
  /**
   * Optional enumeration (for `parley storage copy`): the ids of the instance's blobs in keyset pages,
   * without their bytes (read each with {@link open} or {@link get}, so memory holds at most one blob).
   * Databases order by id; an object store in the order of its keys (which encode the ids), stable
   * from page to page.
   */
  scanIds?(instance: string, request: ScanRequest): Promise<ScanPage<string>>;
}

/**
 * Channel auth state (creds and signal keys) as opaque text, by category and id. Values are written
 * with {@link encodeStored} so Buffers round-trip; the repository stores text as it is.
 */
export interface AuthStateRepository {
  /** Answers the stored values of the ids that exist (absent ids are missing from the result). */
  get(instance: string, category: string, ids: string[]): Promise<Record<string, string>>;
  /**
   * Writes all entries atomically; a null value deletes the entry. With a `fence` (cluster nodes), the
   * write applies only while the fence's token is the instance's current one, checked atomically with
   * it (FencedOffError otherwise); back ends that cannot run a cluster never receive one.
   */
  set(instance: string, entries: { category: string; id: string; value: string | null }[], fence?: Fence): Promise<void>;
  /** Deletes the whole auth state of an instance (logout); `fence` as for {@link set}. */
  clear(instance: string, fence?: Fence): Promise<void>;
  /**
   * Optional enumeration (for `parley storage copy`): every entry of the instance's auth state, in
   * pages ordered by category then id.
   */
  scan?(instance: string, request: ScanRequest): Promise<ScanPage<AuthStateEntry>>;
}

/**
 * Small JSON documents that plugins keep (the sandbox network, label sets, dedup windows…), by
 * namespace and id. Values are JSON-serializable.
 */
export interface StateRepository {
  get<T = unknown>(namespace: string, id: string): Promise<T | null>;
  /** `fence` (cluster nodes): applied only while its token is current, as {@link AuthStateRepository.set}. */
  put(namespace: string, id: string, value: unknown, fence?: Fence): Promise<void>;
  delete(namespace: string, id: string, fence?: Fence): Promise<boolean>;
  /** Every document of a namespace, ordered by id. */
  list<T = unknown>(namespace: string): Promise<{ id: string; value: T }[]>;
  /** Deletes every namespace starting with `prefix`. */
  clearPrefix(prefix: string, fence?: Fence): Promise<void>;
  /**
   * Optional enumeration (for `parley storage copy`): the namespaces starting with `prefix` (`''`:
   * all) that hold at least one document, sorted. An instance's own namespaces start with `<id>:`.
   */
  listNamespaces?(prefix: string): Promise<string[]>;
  /**
   * Optional enumeration (for `parley storage copy`): the documents of one namespace in keyset pages
   * ordered by id (code units), the position being the last document's id; costs the page, not the
   * namespace's size (where the back end can: Redis sorts the namespace's ids per page).
   */
  scan?<T = unknown>(namespace: string, request: ScanRequest): Promise<ScanPage<{ id: string; value: T }>>;
}
