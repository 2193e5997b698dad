import type { Collection, Db, Filter } from 'mongodb';
import type { EnqueueOutcome, NewOutbound, Outbound, OutboundPage, OutboundQueue } from '@parley/core';
import type { MongoCollections } from '../mongo-collections.js';
import type { MongoConnection } from '../mongo-connection.js';
import type { OutboundDocument } from '../mongo-documents.js';

/** Candidates read per claimed entry: rows behind their lane head are skipped. */
const CANDIDATES_PER_CLAIM = 4;

/** The entry a document holds: the document is the entry plus its key and insertion sequence (no lease or error member when unset). */
function toOutbound({ _id: _key, seq: _seq, ...entry }: OutboundDocument): Outbound {
  return entry;
}

/**
 * The outbound queue on MongoDB: one document per entry. A claim leases with a conditional update
 * (the lease it read must still be there), so two servers never lease one entry. The queue bound is
 * checked by a count before the insert: concurrent enqueues to one instance may pass it by their number.
 */
export class MongoOutboundQueue implements OutboundQueue {
  constructor(private readonly connection: MongoConnection, private readonly collections: MongoCollections) {}

  private run<T>(work: (entries: Collection<OutboundDocument>, db: Db) => Promise<T>): Promise<T> {
    return this.connection.run((db) => work(this.collections.outbound(db), db));
  }

  async enqueue(item: NewOutbound, bound: number, lease?: { now: number; leaseMs: number }): Promise<EnqueueOutcome> {
    return this.run(async (entries, db) => {
      const waiting = await this.collections.outboundPaused(db).findOne({ _id: item.instance }) ? 'paused' : 'queued';
      if (await entries.findOne({ _id: `${item.instance}\n${item.id}` }, { projection: { _id: 1 } })) return waiting;
      if (await entries.countDocuments({ instance: item.instance }) >= bound) return 'full';
      const leased = lease !== undefined && item.dueAt <= lease.now && waiting === 'queued'
        && !(await entries.findOne({ instance: item.instance, lane: item.lane, order: { $lte: item.dueAt } }, { projection: { _id: 1 } }));
      const seq = await this.collections.nextSeq(db, 'outbound');
      await entries.updateOne({ _id: `${item.instance}\n${item.id}` }, {
        $setOnInsert: { ...item, order: item.dueAt, seq, attempts: 0, ...(leased ? { leasedUntil: lease.now + lease.leaseMs } : {}) },
      }, { upsert: true });
      return leased ? 'leased' : waiting;
    });
  }

  async claim({ now, limit, leaseMs }: { now: number; limit: number; leaseMs: number }): Promise<Outbound[]> {
    return this.run(async (entries, db) => {
      const paused = (await this.collections.outboundPaused(db).find({}).toArray()).map((p) => p._id);
      const candidates = await entries.find({
        dueAt: { $lte: now }, instance: { $nin: paused }, $or: [{ leasedUntil: { $exists: false } }, { leasedUntil: { $lte: now } }],
      }).sort({ dueAt: 1, seq: 1 }).limit(limit * CANDIDATES_PER_CLAIM).toArray();
      const claimed: Outbound[] = [];
      for (const doc of candidates) {
        if (claimed.length >= limit) break;
        const ahead = await entries.findOne({
          instance: doc.instance, lane: doc.lane, $or: [{ order: { $lt: doc.order } }, { order: doc.order, seq: { $lt: doc.seq } }],
        }, { projection: { _id: 1 } });
        if (ahead) continue;
        const held: Filter<OutboundDocument> = doc.leasedUntil === undefined ? { leasedUntil: { $exists: false } } : { leasedUntil: doc.leasedUntil };
        const leased = await entries.findOneAndUpdate({ _id: doc._id, ...held }, { $set: { leasedUntil: now + leaseMs } }, { returnDocument: 'after' });
        if (leased) claimed.push(toOutbound(leased));
      }
      return claimed;
    });
  }

  async complete(instance: string, id: string): Promise<void> {
    await this.run((entries) => entries.deleteOne({ _id: `${instance}\n${id}` }));
  }

  async release(instance: string, id: string, update: { dueAt: number; failed?: { error: string } }): Promise<void> {
    await this.run((entries) => entries.updateOne({ _id: `${instance}\n${id}` }, {
      $set: { dueAt: update.dueAt, ...(update.failed ? { lastError: update.failed.error } : {}) },
      $unset: { leasedUntil: '' },
      ...(update.failed ? { $inc: { attempts: 1 } } : {}),
    }));
  }

  async cancel(instance: string, id: string, now: number): Promise<'cancelled' | 'sending' | 'unknown'> {
    return this.run(async (entries) => {
      const removed = await entries.deleteOne({
        _id: `${instance}\n${id}`, $or: [{ leasedUntil: { $exists: false } }, { leasedUntil: { $lte: now } }],
      });
      if (removed.deletedCount > 0) return 'cancelled';
      return (await entries.findOne({ _id: `${instance}\n${id}` }, { projection: { _id: 1 } })) ? 'sending' : 'unknown';
    });
  }

  async get(instance: string, id: string): Promise<Outbound | null> {
    const doc = await this.run((entries) => entries.findOne({ _id: `${instance}\n${id}` }));
    return doc ? toOutbound(doc) : null;
  }

  async list(instance: string, page: { limit: number; offset: number }): Promise<OutboundPage> {
    return this.run(async (entries) => {
      const [docs, total] = await Promise.all([
        entries.find({ instance }).sort({ dueAt: 1, seq: 1 }).skip(page.offset).limit(page.limit).toArray(),
        entries.countDocuments({ instance }),
      ]);
      return { items: docs.map(toOutbound), total };
    });
  }

  count(instance: string): Promise<number> {
    return this.run((entries) => entries.countDocuments({ instance }));
  }

  async setPaused(instance: string, paused: boolean): Promise<void> {
    await this.connection.run(async (db): Promise<unknown> => paused
      ? this.collections.outboundPaused(db).updateOne({ _id: instance }, { $set: { _id: instance } }, { upsert: true })
      : this.collections.outboundPaused(db).deleteOne({ _id: instance }));
  }

  async isPaused(instance: string): Promise<boolean> {
    return (await this.connection.run((db) => this.collections.outboundPaused(db).findOne({ _id: instance }))) !== null;
  }

  /** Never later than the true next due time (rows behind their lane head count too). */
  async nextDueAt(): Promise<number | null> {
    return this.run(async (entries, db) => {
      const paused = (await this.collections.outboundPaused(db).find({}).toArray()).map((p) => p._id);
      const [due] = await entries.find({ instance: { $nin: paused }, leasedUntil: { $exists: false } }).sort({ dueAt: 1 }).limit(1).toArray();
      const [lease] = await entries.find({ leasedUntil: { $exists: true } }).sort({ leasedUntil: 1 }).limit(1).toArray();
      const times = [due?.dueAt, lease?.leasedUntil].filter((t): t is number => t !== undefined);
      return times.length === 0 ? null : Math.min(...times);
    });
  }

  async clear(instance: string): Promise<void> {
    await this.run(async (entries, db) => {
      await entries.deleteMany({ instance });
      await this.collections.outboundPaused(db).deleteOne({ _id: instance });
    });
  }
}
