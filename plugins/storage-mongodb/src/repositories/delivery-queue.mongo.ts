import { MongoBulkWriteError, type Db } from 'mongodb';
import {
  ServiceUnavailableError, webhookStatsOf, type DeadLetter, type Delivery, type DeliveryFailure, type DeliveryOutcome, type DeliveryQueue, type NewDelivery, type WebhookStats,
  type Clock, type EventLog, type LoggedEvent,
} from '@parley/core';
import type { MongoCollections } from '../mongo-collections.js';
import { isDuplicate, retryOnDuplicate, type MongoConnection } from '../mongo-connection.js';
import type { LaneDocument } from '../mongo-documents.js';
import {
  deliveryLane, deliveryToDocument, documentToDeadLetter, documentToDelivery, type DeliveryDocument,
} from '../mongo-mappings.js';

/** Compare-and-set rounds of a lane refresh before giving up; only a storm of writers on one lane exhausts them. */
const REFRESH_ATTEMPTS = 25;

/**
 * The delivery queue on MongoDB, without multi-document transactions. Deliveries are documents
 * (state `queued` or `dead`, `seq` = enqueue order); each non-empty lane has a lane document naming
 * its head and when it is next claimable. A claim is one findOneAndUpdate on a due lane document, so
 * two workers never lease the same lane — hence the same delivery — at once. After every change to a
 * lane's deliveries, the lane document is recomputed from them with a versioned compare-and-set, so
 * concurrent writers converge on the true head.
 *
 * Known limits: two servers enqueueing into the same lane at the same instant may store them out of
 * sequence order; a crash between a delivery write and its lane refresh leaves the lane stale until
 * its next write or claim; an enqueue logs its events right after its deliveries, not atomically with
 * them, so a crash in between leaves deliveries queued whose events are not logged (a replaying channel
 * then emits them again: delivered twice rather than lost).
 */
export class MongoDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly connection: MongoConnection,
    private readonly collections: MongoCollections,
    private readonly clock: Clock,
    private readonly log: EventLog,
  ) {}

  /** The deliveries, then the event-log entries (no multi-document transaction: see the class notes). */
  async enqueue(deliveries: NewDelivery[], events: LoggedEvent[] = []): Promise<void> {
    await this.enqueueDeliveries(deliveries);
    await this.log.append(events);
  }

  private async enqueueDeliveries(deliveries: NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.connection.run(async (db) => {
      const first = await this.collections.nextSeq(db, 'deliveries', deliveries.length);
      const documents = deliveries.map((delivery, i) => deliveryToDocument(delivery, deliveryLane(delivery.instance, delivery.url), first + i));
      try {
        await this.collections.deliveries(db).insertMany(documents, { ordered: false });
      } catch (err) {
        // Duplicate ids are ignored; everything else is an error.
        if (!onlyDuplicates(err)) throw err;
      }
      for (const lane of new Set(documents.map((document) => document.lane))) await this.refreshLane(db, lane);
    });
  }

  async claim(options: { now: number; limit: number; leaseMs: number; perLane?: number }): Promise<Delivery[]> {
    const perLane = options.perLane ?? 1;
    if (options.limit <= 0) return [];
    const leaseUntil = options.now + options.leaseMs;
    return this.connection.run(async (db) => {
      const lanes = this.collections.lanes(db);
      const claimed: Delivery[] = [];
      for (let round = 0; round < options.limit * 2 + 2 && claimed.length < options.limit; round++) {
        const lane = await lanes.findOneAndUpdate(
          { dueAt: { $lte: options.now } },
          [{ $set: { dueAt: leaseUntil, leaseUntil, leasedId: '$headId', version: { $add: ['$version', 1] } } }],
          { sort: { dueAt: 1, headSeq: 1 }, returnDocument: 'after' },
        );
        if (!lane) break;
        const head = await this.collections.deliveries(db).findOne({ _id: lane.headId, state: 'queued' });
        if (head && head.lane === lane._id && head.seq === lane.headSeq) {
          claimed.push(documentToDelivery(head));
          if (perLane > 1) claimed.push(...await this.behind(db, head, perLane - 1, options.now));
        } else {
          // The lane named a head that was acknowledged or moved meanwhile: recompute it (dropping this lease).
          await this.refreshLane(db, lane._id);
        }
      }
      return claimed;
    });
  }

  async ack(id: string, result: { responseTimeMs: number; status: number }): Promise<void> {
    await this.connection.run(async (db) => {
      const lane = await this.acknowledge(db, id, result.responseTimeMs);
      if (lane !== null) await this.refreshLane(db, lane);
    });
  }

  async fail(id: string, failure: DeliveryFailure): Promise<void> {
    await this.connection.run(async (db) => {
      const lane = await this.failAttempt(db, id, failure);
      if (lane !== null) await this.refreshLane(db, lane, (head) => head === id);
    });
  }

  /**
   * Applies the outcomes in order, then recomputes each lane touched once, dropping the lease of a
   * head that was in the batch. Not one transaction: a crash midway leaves the rest leased until the
   * lease expires (the batch's remainder is then sent again).
   */
  async complete(outcomes: DeliveryOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    await this.connection.run(async (db) => {
      const lanes = new Set<string>();
      for (const outcome of outcomes) {
        let lane: string | null;
        if (outcome.outcome === 'sent') lane = await this.acknowledge(db, outcome.id, outcome.responseTimeMs);
        else if (outcome.outcome === 'failed') lane = await this.failAttempt(db, outcome.id, outcome.failure);
        else lane = (await this.collections.deliveries(db).findOne({ _id: outcome.id, state: 'queued' }, { projection: { lane: 1 } }))?.lane ?? null;
        if (lane !== null) lanes.add(lane);
      }
      const settled = new Set(outcomes.map((outcome) => outcome.id));
      for (const lane of lanes) await this.refreshLane(db, lane, (head) => settled.has(head));
    });
  }

  /** Reads the unleased lanes due after `now` (the `lane_due` index), then their heads of the target. */
  async expedite(url: string, now: number): Promise<number> {
    return this.connection.run(async (db) => {
      const waiting = await this.collections.lanes(db).find({ dueAt: { $gt: now }, leasedId: null }, { projection: { headId: 1 } }).toArray();
      if (waiting.length === 0) return 0;
      const deliveries = this.collections.deliveries(db);
      const heads = await deliveries.find(
        { _id: { $in: waiting.map((lane) => lane.headId) }, url, state: 'queued', nextAttemptAt: { $gt: now } }, { projection: { lane: 1 } },
      ).toArray();
      if (heads.length === 0) return 0;
      await deliveries.updateMany({ _id: { $in: heads.map((head) => head._id) }, state: 'queued' }, { $set: { nextAttemptAt: now } });
      for (const head of heads) await this.refreshLane(db, head.lane);
      return heads.length;
    });
  }

  /** The due deliveries right behind `head` in its lane, up to `count`, in lane order. */
  private async behind(db: Db, head: DeliveryDocument, count: number, now: number): Promise<Delivery[]> {
    const next = await this.collections.deliveries(db).find({ lane: head.lane, state: 'queued', seq: { $gt: head.seq } }).sort({ seq: 1 }).limit(count).toArray();
    const due: Delivery[] = [];
    for (const document of next) {
      if (document.nextAttemptAt > now) break;
      due.push(documentToDelivery(document));
    }
    return due;
  }

  /** Deletes a delivered one and counts it; answers its lane, or null when it was unknown or dead. */
  private async acknowledge(db: Db, id: string, responseTimeMs: number): Promise<string | null> {
    const document = await this.collections.deliveries(db).findOneAndDelete({ _id: id, state: 'queued' });
    if (!document) return null;
    await this.count(db, document.instance, { sent: 1, responseTimeSum: responseTimeMs, responseCount: 1 });
    return document.lane;
  }

  /** Counts a failed attempt and reschedules or kills it; answers its lane, or null when it was unknown or dead. */
  private async failAttempt(db: Db, id: string, failure: DeliveryFailure): Promise<string | null> {
    const set: Partial<DeliveryDocument> = { lastError: failure.error };
    if (failure.status !== undefined) set.lastStatus = failure.status;
    if (failure.nextAttemptAt === null) {
      set.state = 'dead';
      set.deadAt = this.clock.now();
    } else {
      set.nextAttemptAt = failure.nextAttemptAt;
    }
    const update = { $inc: { attempts: 1 }, $set: set, ...(failure.status === undefined ? { $unset: { lastStatus: '' as const } } : {}) };
    const document = await this.collections.deliveries(db).findOneAndUpdate({ _id: id, state: 'queued' }, update, { returnDocument: 'after' });
    if (!document) return null;
    const increments: Record<string, number> = { failed: 1 };
    if (failure.responseTimeMs !== undefined) Object.assign(increments, { responseTimeSum: failure.responseTimeMs, responseCount: 1 });
    await this.count(db, document.instance, increments);
    return document.lane;
  }

  async nextDueAt(): Promise<number | null> {
    const lane = await this.connection.run((db) => this.collections.lanes(db).find().sort({ dueAt: 1 }).limit(1).next());
    return lane ? lane.dueAt : null;
  }

  async deadLetters(instance: string, page: { limit: number; offset: number }): Promise<{ items: DeadLetter[]; total: number }> {
    const filter = { instance, state: 'dead' as const };
    const [documents, total] = await this.connection.run((db) => {
      const deliveries = this.collections.deliveries(db);
      return Promise.all([
        page.limit > 0 ? deliveries.find(filter).sort({ deadAt: 1, seq: 1 }).skip(Math.max(0, page.offset)).limit(page.limit).toArray() : Promise.resolve([]),
        deliveries.countDocuments(filter),
      ]);
    });
    return { items: documents.map(documentToDeadLetter), total };
  }

  async redeliver(instance: string, ids?: string[]): Promise<number> {
    if (ids && ids.length === 0) return 0;
    return this.connection.run(async (db) => {
      const deliveries = this.collections.deliveries(db);
      const filter = { instance, state: 'dead' as const, ...(ids ? { _id: { $in: ids } } : {}) };
      const dead = await deliveries.find(filter, { projection: { _id: 1, lane: 1 } }).sort({ deadAt: 1, seq: 1 }).toArray();
      if (dead.length === 0) return 0;
      const first = await this.collections.nextSeq(db, 'deliveries', dead.length);
      const now = this.clock.now();
      let moved = 0;
      for (const [i, letter] of dead.entries()) {
        // A fresh schedule at the end of its lane; the last error stays for the record.
        const result = await deliveries.updateOne(
          { _id: letter._id, state: 'dead' },
          { $set: { state: 'queued', attempts: 0, nextAttemptAt: now, seq: first + i }, $unset: { deadAt: '' } },
        );
        moved += result.modifiedCount;
      }
      for (const lane of new Set(dead.map((letter) => letter.lane))) await this.refreshLane(db, lane);
      return moved;
    });
  }

  async discardDeadLetters(instance: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await this.connection.run((db) => this.collections.deliveries(db).deleteMany({ instance, state: 'dead', _id: { $in: ids } }));
    return result.deletedCount;
  }

  async purgeDeadLetters(before: number): Promise<number> {
    const result = await this.connection.run((db) => this.collections.deliveries(db).deleteMany({ state: 'dead', deadAt: { $lt: before } }));
    return result.deletedCount;
  }

  async stats(instance: string): Promise<WebhookStats> {
    const [counters, pending] = await this.connection.run((db) => Promise.all([
      this.collections.stats(db).findOne({ _id: instance }),
      this.collections.deliveries(db).countDocuments({ instance, state: 'queued' }),
    ]));
    return webhookStatsOf(counters && { ...counters, responses: counters.responseCount }, pending);
  }

  async clear(instance: string): Promise<void> {
    await this.connection.run(async (db) => {
      await this.collections.deliveries(db).deleteMany({ instance });
      await this.collections.lanes(db).deleteMany({ instance });
      await this.collections.stats(db).deleteOne({ _id: instance });
    });
  }

  private async count(db: Db, instance: string, increments: Record<string, number>): Promise<void> {
    await retryOnDuplicate(() => this.collections.stats(db).updateOne({ _id: instance }, { $inc: increments }, { upsert: true }));
  }

  /**
   * Recomputes a lane document from its queued deliveries: the head is the lowest `seq`; its lease is
   * kept unless `releases` says so for it (a failed attempt, a settled batch) or the head changed. Deletes the document of
   * an empty lane. Versioned compare-and-set, retried when another writer changed the lane meanwhile.
   */
  private async refreshLane(db: Db, lane: string, releases: (head: string) => boolean = () => false): Promise<void> {
    const lanes = this.collections.lanes(db);
    for (let attempt = 0; attempt < REFRESH_ATTEMPTS; attempt++) {
      const current = await lanes.findOne({ _id: lane });
      const head = await this.collections.deliveries(db).find({ lane, state: 'queued' }).sort({ seq: 1 }).limit(1).next();
      if (!head) {
        if (!current) return;
        if ((await lanes.deleteOne({ _id: lane, version: current.version })).deletedCount === 1) return;
        continue;
      }
      const keepLease = current !== null && current.leasedId === head._id && current.leaseUntil !== null && !releases(head._id);
      const next: Omit<LaneDocument, '_id'> = {
        instance: head.instance,
        headId: head._id,
        headSeq: head.seq,
        dueAt: keepLease ? current.leaseUntil! : head.nextAttemptAt,
        leasedId: keepLease ? head._id : null,
        leaseUntil: keepLease ? current.leaseUntil : null,
        version: (current?.version ?? 0) + 1,
      };
      if (!current) {
        try {
          await lanes.insertOne({ _id: lane, ...next });
          return;
        } catch (err) {
          if (isDuplicate(err)) continue;
          throw err;
        }
      }
      if ((await lanes.updateOne({ _id: lane, version: current.version }, { $set: next })).matchedCount === 1) return;
    }
    throw new ServiceUnavailableError('a delivery lane kept changing under concurrent writers; retry');
  }
}

/** True when a bulk insert failed only on duplicate ids. */
function onlyDuplicates(err: unknown): boolean {
  if (!(err instanceof MongoBulkWriteError)) return isDuplicate(err);
  const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
  return errors.length > 0 && errors.every((writeError) => writeError.code === 11000);
}
