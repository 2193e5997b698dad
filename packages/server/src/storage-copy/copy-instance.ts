import { LinkedAccountIndex, readMedia, writeMedia, type InstanceRecord, type MediaRepository, type ScanPage, type ScanRequest, type Storage } from '@parley/core';

/** What was copied of one instance. */
export interface InstanceCopyCounts {
  id: string;
  name: string;
  messages: number;
  chats: number;
  contacts: number;
  media: number;
  authState: number;
  events: number;
}

/** The enumerations a copy reads (checked present by `copyStorage` before anything is written). */
export type ScanningStorage = Storage & {
  instances: Required<Pick<Storage['instances'], 'claimsOf'>> & Storage['instances'];
  messages: Required<Pick<Storage['messages'], 'scan'>> & Storage['messages'];
  chats: Required<Pick<Storage['chats'], 'scan'>> & Storage['chats'];
  contacts: Required<Pick<Storage['contacts'], 'scan'>> & Storage['contacts'];
  media: Required<Pick<Storage['media'], 'scanIds'>> & Storage['media'];
  authState: Required<Pick<Storage['authState'], 'scan'>> & Storage['authState'];
  state: Required<Pick<Storage['state'], 'listNamespaces' | 'scan'>> & Storage['state'];
};

/** Settings of one copy. */
export interface CopySettings {
  /** Items per page read from the source (and written before the next page is read). */
  batch: number;
  /** One line of progress (stderr in the CLI). */
  progress(line: string): void;
}

/** Runs `each` on every page of a scan, one page in memory at a time; answers how many items there were. */
export async function eachPage<T>(scan: (request: ScanRequest) => Promise<ScanPage<T>>, batch: number, each: (items: T[]) => Promise<void>): Promise<number> {
  let count = 0;
  let after: string | undefined;
  do {
    const page = await scan({ limit: batch, ...(after === undefined ? {} : { after }) });
    if (page.items.length > 0) await each(page.items);
    count += page.items.length;
    after = page.next;
  } while (after !== undefined);
  return count;
}

/**
 * Writes the instance record with its claims: created when the target lacks it, else made the
 * source's (a re-run), claims added (claiming is idempotent). Then its linked social accounts into the
 * target's index, so inbound webhooks find it.
 */
async function copyRecord(source: ScanningStorage, target: Storage, record: InstanceRecord): Promise<void> {
  const claims = await source.instances.claimsOf(record.id);
  const existing = await target.instances.get(record.id);
  if (existing) {
    const { id, ...rest } = record;
    // What the source's record lacks goes (an undefined value removes a field): the record ends as the source's.
    const gone = Object.keys(existing).filter((field) => field !== 'id' && !(field in rest)).map((field) => [field, undefined]);
    await target.instances.update(id, { ...Object.fromEntries(gone), ...rest });
    await target.instances.claim(id, claims);
  } else {
    await target.instances.create(record, claims);
  }
  const index = new LinkedAccountIndex(target.state, target.instances);
  for (const link of Object.values(record.links)) if (link) await index.add(record.id, link);
}

/**
 * The media store both sides use (one bucket and prefix: the `location` of a `MediaStore`), whose
 * blobs are already where the target reads them; undefined otherwise.
 */
function sharedMediaStore(source: Storage, target: Storage): string | undefined {
  const location = (media: MediaRepository) => ((media as { location?: unknown }).location as string | undefined);
  const shared = location(source.media);
  return typeof shared === 'string' && shared === location(target.media) ? shared : undefined;
}

/**
 * Copies the instance's media, page by page of ids, each blob streamed from the source's `open` to the
 * target's `putStream` where they have them (an object store's), else read or written whole: memory
 * holds one blob at most, and none of it whole when both sides stream.
 */
async function copyMedia(source: ScanningStorage, target: Storage, id: string, batch: number): Promise<number> {
  return eachPage((request) => source.media.scanIds(id, request), batch, async (ids) => {
    for (const messageId of ids) {
      const object = await readMedia(source.media, id, messageId);
      if (!object) continue;
      await writeMedia(target.media, id, messageId, object.body, { mimetype: object.mimetype, ...(object.fileName === undefined ? {} : { fileName: object.fileName }) });
    }
  });
}

/**
 * Copies one instance and everything it owns except its state documents (copied by namespace, see
 * `copyStorage`): the record with its claims, messages, chats, contacts, media (none when both sides
 * use one media store), channel auth state, the event log and the outbound queue's paused flag, each
 * in pages of `batch`. Every write is an
 * upsert, so a re-run converges on the source.
 */
export async function copyInstance(source: ScanningStorage, target: Storage, record: InstanceRecord, settings: CopySettings): Promise<InstanceCopyCounts> {
  const { id } = record;
  const { batch } = settings;
  const label = record.name ? `${id} (${record.name})` : id;
  await copyRecord(source, target, record);
  let messages = 0;
  await eachPage((request) => source.messages.scan(id, request), batch, async (items) => {
    // One at a time, in the order read: a chat's ties keep their order only if inserted in it.
    for (const message of items) await target.messages.upsert(id, message);
    messages += items.length;
    settings.progress(`${label}: ${messages} messages`);
  });
  const chats = await eachPage((request) => source.chats.scan(id, request), batch, async (items) => {
    for (const chat of items) await target.chats.upsert(id, chat);
  });
  const contacts = await eachPage((request) => source.contacts.scan(id, request), batch, async (items) => {
    for (const contact of items) await target.contacts.upsert(id, contact);
  });
  const shared = sharedMediaStore(source, target);
  if (shared) settings.progress(`${label}: media left in ${shared}, which the target uses too`);
  const media = shared ? 0 : await copyMedia(source, target, id, batch);
  const authState = await eachPage((request) => source.authState.scan(id, request), batch, (entries) => target.authState.set(id, entries));
  let events = 0;
  for (let after: string | undefined, page; (page = await source.events.read({ instance: id, limit: batch, ...(after ? { after } : {}) })).length > 0;) {
    await target.events.append(page);
    events += page.length;
    after = page.at(-1)!.id;
  }
  await target.outbound.setPaused(id, await source.outbound.isPaused(id));
  await target.flush();
  const counts = { id, name: record.name, messages, chats, contacts, media, authState, events };
  settings.progress(`${label}: copied ${messages} messages, ${chats} chats, ${contacts} contacts, ${media} media, ${authState} auth state entries, ${events} events`);
  return counts;
}
