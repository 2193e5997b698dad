import { ConflictError, NotFoundError, type InstanceRecord, type InstanceRepository } from '@parley/core';
import type { MongoCollections } from '../mongo-collections.js';
import { isDuplicate, type MongoConnection } from '../mongo-connection.js';
import { documentToInstance, instanceToDocument, jsonClean } from '../mongo-mappings.js';

/** Instances, `_id` = public id, a unique index on the secret key. */
export class MongoInstanceRepository implements InstanceRepository {
  constructor(private readonly connection: MongoConnection, private readonly collections: MongoCollections) {}

  async create(record: InstanceRecord): Promise<void> {
    await this.connection.run(async (db) => {
      const seq = await this.collections.nextSeq(db, 'instances');
      try {
        await this.collections.instances(db).insertOne(instanceToDocument(record, seq));
      } catch (err) {
        if (isDuplicate(err)) throw new ConflictError('an instance with this id or key already exists', 'instance_exists');
        throw err;
      }
    });
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
    const result = await this.connection.run((db) => this.collections.instances(db).deleteOne({ _id: id }));
    return result.deletedCount > 0;
  }
}
