import { createHash } from 'node:crypto';

/**
 * Every key name of the back end, in one place. Names that Lua scripts build at run time (a chat's
 * message index, a lane, a delivery) are passed to the scripts as stems ending in `:`; the scripts
 * append the id. Scripts therefore touch keys they were not handed in KEYS, which standalone Redis
 * (and a primary with replicas) allows and Redis Cluster does not.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  // Instances: one JSON string per instance, an insertion-ordered index and a key → id lookup.
  instance(id: string): string { return `${this.prefix}instance:${id}`; }
  get instanceStem(): string { return `${this.prefix}instance:`; }
  get instanceOrder(): string { return `${this.prefix}instances`; }
  get instanceOrderSeq(): string { return `${this.prefix}instances:seq`; }
  /** Hash of sha256(key) → id: the secret key itself never appears in Redis key or field names. */
  get instanceByKey(): string { return `${this.prefix}instance-keys`; }
  /** Hash of `namespace NUL value` → id: the unique claims of every instance. */
  get instanceClaims(): string { return `${this.prefix}instance-claims`; }
  /** Set of the claim fields one instance holds, released with it. */
  claimsOf(id: string): string { return `${this.prefix}instance-claims:${id}`; }

  // Messages of one instance.
  messages(instance: string): string { return `${this.prefix}msg:${instance}`; }
  /** id → `{c: chat, m: member}`: where a message sits in its chat index. */
  messageIndex(instance: string): string { return `${this.prefix}msg-index:${instance}`; }
  /** Stem of the per-chat sorted sets (score: timestamp, member: `<seq>:<id>`). */
  chatMessagesStem(instance: string): string { return `${this.prefix}msg-chat:${instance}:`; }
  chatMessages(instance: string, chat: string): string { return `${this.chatMessagesStem(instance)}${chat}`; }
  /** Chats that have messages, to find every per-chat set on clear. */
  messageChats(instance: string): string { return `${this.prefix}msg-chats:${instance}`; }
  /** id by timestamp, for retention trimming. */
  messageTimes(instance: string): string { return `${this.prefix}msg-time:${instance}`; }
  messageSeq(instance: string): string { return `${this.prefix}msg-seq:${instance}`; }

  chats(instance: string): string { return `${this.prefix}chat:${instance}`; }
  contacts(instance: string): string { return `${this.prefix}contact:${instance}`; }
  mediaMeta(instance: string): string { return `${this.prefix}media-meta:${instance}`; }
  mediaData(instance: string): string { return `${this.prefix}media-data:${instance}`; }
  authState(instance: string): string { return `${this.prefix}auth:${instance}`; }

  stateStem(): string { return `${this.prefix}state:`; }
  state(namespace: string): string { return `${this.stateStem()}${namespace}`; }
  get stateNamespaces(): string { return `${this.prefix}state-namespaces`; }

  // Delivery queue.
  get deliveryStem(): string { return `${this.prefix}dq:item:`; }
  /** Enqueue counter: orders dead letters that died in the same millisecond. */
  get deliverySeq(): string { return `${this.prefix}dq:seq`; }
  get laneStem(): string { return `${this.prefix}dq:lane:`; }
  /** Lane id → due time of its head (its lease end while leased). */
  get dueLanes(): string { return `${this.prefix}dq:due`; }
  /** Lane id → its current member in {@link dueLanes}. */
  get dueMembers(): string { return `${this.prefix}dq:due-member`; }
  get lanesOfStem(): string { return `${this.prefix}dq:lanes:`; }
  get deadOfStem(): string { return `${this.prefix}dq:dead:`; }
  deadOf(instance: string): string { return `${this.deadOfStem}${instance}`; }
  /** Every dead letter by dead time, for purging across instances. */
  get deadAll(): string { return `${this.prefix}dq:dead-all`; }
  get statsStem(): string { return `${this.prefix}dq:stats:`; }
  stats(instance: string): string { return `${this.statsStem}${instance}`; }

  // Event log: sorted sets of ids (score 0, ordered by the id's text) and one hash of the entries.
  get eventsAll(): string { return `${this.prefix}ev:all`; }
  get eventData(): string { return `${this.prefix}ev:data`; }
  get eventsOfStem(): string { return `${this.prefix}ev:of:`; }
  eventsOf(instance: string): string { return `${this.eventsOfStem}${instance}`; }
  // Outbound send queue (layout in repositories/outbound-queue.scripts.ts).
  get outboundItemStem(): string { return `${this.prefix}ob:item:`; }
  get outboundLaneStem(): string { return `${this.prefix}ob:lane:`; }
  get outboundLanesStem(): string { return `${this.prefix}ob:lanes:`; }
  get outboundInstanceStem(): string { return `${this.prefix}ob:inst:`; }
  get outboundDue(): string { return `${this.prefix}ob:due`; }
  get outboundSeq(): string { return `${this.prefix}ob:seq`; }
  get outboundPaused(): string { return `${this.prefix}ob:paused`; }
  get outboundLaneInstance(): string { return `${this.prefix}ob:lane-instance`; }

  /** One hash per idempotency key (expiring with it); scope and key as a digest, whatever characters the key has. */
  idempotency(scope: string, key: string): string {
    return `${this.prefix}idem:${createHash('sha256').update(scope).update('\0').update(key).digest('hex')}`;
  }
}

/** Lane id of an instance and URL: a digest, so URLs (which may carry tokens) stay out of key names. */
export function laneId(instance: string, url: string): string {
  return createHash('sha256').update(instance).update('\n').update(url).digest('hex').slice(0, 32);
}

/** Digest under which an instance key is indexed. */
export function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
