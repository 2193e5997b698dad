import {
  type Clock,
  ConflictError, NotFoundError, UniqueClaimConflictError, type InstancePage, type InstancePageRequest, type InstanceRecord,
  type InstanceRepository, type UniqueClaim,
} from '@parley/core';
import type { Db } from 'mongodb';
import type { MongoCollections } from '../mongo-collections.js';
import { isDuplicate, type MongoConnection } from '../mongo-connection.js';
import { documentToInstance, instanceToDocument, jsonClean } from '../mongo-mappings.js';

/** Age after which a claim whose instance does not exist is an orphan of a crashed creation. */
const ORPHAN_CLAIM_MS = 60_000;

/**
 * Instances, `_id` = public id, a unique index on the secret key. Unique claims live in their own
 * collection under a unique (namespace, value) index: they are inserted before the record and removed
 * again when the record cannot be inserted. Without a replica set there are no multi-document
 * transactions, so a process dying between the two inserts can leave a claim without a record; such a
 * claim is taken over once it is older than {@link ORPHAN_CLAIM_MS} and its instance still does not
 * exist. The unique index guarantees that of two concurrent creations claiming one value, one wins.
 */
export class MongoInstanceRepository implements InstanceRepository {
  constructor(private readonly connection: MongoConnection, private readonly collections: MongoCollections, private readonly clock: Clock) {}

  async create(record: InstanceRecord, claims: readonly UniqueClaim[] = []): Promise<void> {
    await this.connection.run(async (db) => {
      await this.insertClaims(db, record.id, claims);
      try {
        const seq = await this.collections.nextSeq(db, 'instances');
        await this.collections.instances(db).insertOne(instanceToDocument(record, seq));
      } catch (err) {
        if (claims.length > 0) await this.collections.claims(db).deleteMany({ instance: record.id });
        if (isDuplicate(err)) throw new ConflictError('an instance with this id or key already exists', 'instance_exists');
        throw err;
      }
    });
  }

  async claim(id: string, claims: readonly UniqueClaim[]): Promise<void> {
    await this.connection.run(async (db) => {
      if (!(await this.collections.instances(db).findOne({ _id: id }, { projection: { _id: 1 } }))) throw new NotFoundError(`instance ${id}`);
      await this.insertClaims(db, id, claims);
    });
  }

  /**
   * Inserts the claims one by one, keeping those `instance` holds already; on the first another
   * instance holds, removes the ones this call inserted.
   */
  private async insertClaims(db: Db, instance: string, claims: readonly UniqueClaim[]): Promise<void> {
    const collection = this.collections.claims(db);
    const inserted: UniqueClaim[] = [];
    for (const claim of claims) {
      try {
        await collection.insertOne({ namespace: claim.namespace, value: claim.value, instance, at: this.clock.now() });
        inserted.push(claim);
      } catch (err) {
        const outcome = isDuplicate(err) ? await this.holdsOrTakesOver(db, instance, claim) : 'refused';
        if (outcome === 'held') continue;
        if (outcome === 'taken over') {
          inserted.push(claim);
          continue;
        }
        if (inserted.length > 0) await collection.deleteMany({ instance, $or: inserted.map(({ namespace, value }) => ({ namespace, value })) });
        if (isDuplicate(err)) throw new UniqueClaimConflictError(claim);
        throw err;
      }
    }
  }

  /**
   * After a duplicate-key refusal: whether `instance` holds the claim already, or took it over from an
   * orphan (older than {@link ORPHAN_CLAIM_MS}, its instance absent) with a compare-and-set.
   */
  private async holdsOrTakesOver(db: Db, instance: string, claim: UniqueClaim): Promise<'held' | 'taken over' | 'refused'> {
    const collection = this.collections.claims(db);
    const holder = await collection.findOne({ namespace: claim.namespace, value: claim.value });
    if (!holder) return 'refused';
    if (holder.instance === instance) return 'held';
    if (holder.at > this.clock.now() - ORPHAN_CLAIM_MS) return 'refused';
    if (await this.collections.instances(db).findOne({ _id: holder.instance }, { projection: { _id: 1 } })) return 'refused';
    const taken = await collection.updateOne({ _id: holder._id, instance: holder.instance }, { $set: { instance, at: this.clock.now() } });
    return taken.modifiedCount === 1 ? 'taken over' : 'refused';
  }

  async claimsOf(id: string): Promise<UniqueClaim[]> {
    const documents = await this.connection.run((db) => this.collections.claims(db).find({ instance: id }).sort({ namespace: 1, value: 1 }).toArray());
    return documents.map(({ namespace, value }) => ({ namespace, value }));
  }

  async claimHolder(namespace: string, value: string): Promise<string | null> {
    const document = await this.connection.run((db) => this.collections.claims(db).findOne({ namespace, value }));
    return document?.instance ?? null;
  }

  async get(id: string): Promise<InstanceRecord | null> {
    const document = await this.connection.run((db) => this.collections.instances(db).findOne({ _id: id }));
    return document ? documentToInstance(document) : null;
  }

  async findByKey(key: string): Promise<InstanceRecord | null> {
    const document = await this.connection.run((db) => this.collections.instances(db).findOne({ key }));
    return document ? documentToInstance(document) : null;
  }

  async list(): Promise<InstanceRecord[]> {
    const documents = await this.connection.run((db) => this.collections.instances(db).find().sort({ createdAt: 1, seq: 1 }).toArray());
    return documents.map(documentToInstance);
  }

  async listPage({ limit, after }: InstancePageRequest): Promise<InstancePage> {
    const documents = await this.connection.run((db) => this.collections.instances(db)
      .find(after === undefined ? {} : { seq: { $gt: Number(after) } }).sort({ seq: 1 }).limit(limit + 1).toArray());
    const page = documents.slice(0, limit);
    return { items: page.map(documentToInstance), ...(documents.length > limit ? { next: String(page[page.length - 1]!.seq) } : {}) };
  }

  async update(id: string, patch: Partial<Omit<InstanceRecord, 'id'>>): Promise<InstanceRecord> {
    const set: Record<string, unknown> = {};
    const unset: Record<string, ''> = {};
    for (const [name, value] of Object.entries(patch)) {
      if (name === 'id' || name === '_id' || name === 'seq') continue;
      // As in JSON: a member patched to undefined is removed.
      if (value === undefined) unset[name] = '';
      else set[name] = jsonClean(value);
    }
    const update = { ...(Object.keys(set).length > 0 ? { $set: set } : {}), ...(Object.keys(unset).length > 0 ? { $unset: unset } : {}) };
    const document = await this.connection.run(async (db) => {
      const instances = this.collections.instances(db);
      if (Object.keys(update).length === 0) return instances.findOne({ _id: id });
      try {
        return await instances.findOneAndUpdate({ _id: id }, update, { returnDocument: 'after' });
      } catch (err) {
        if (isDuplicate(err)) throw new ConflictError('an instance with this key already exists', 'instance_exists');
        throw err;
      }
    });
    if (!document) throw new NotFoundError(`instance ${id}`);
    return documentToInstance(document);
  }

  async delete(id: string): Promise<boolean> {
    return this.connection.run(async (db) => {
      const result = await this.collections.instances(db).deleteOne({ _id: id });
      await this.collections.claims(db).deleteMany({ instance: id });
      return result.deletedCount > 0;
    });
  }
}
