import { ConflictError, mergeInstance, NotFoundError, type InstanceRecord, type InstanceRepository } from '@parley/core';
import { copyOf } from '../copy.js';

export class MemoryInstanceRepository implements InstanceRepository {
  /** Insertion order breaks createdAt ties in `list`. */
  private readonly byId = new Map<string, InstanceRecord>();
  private readonly idByKey = new Map<string, string>();

  async create(record: InstanceRecord): Promise<void> {
    if (this.byId.has(record.id)) throw new ConflictError(`instance ${record.id} already exists`);
    if (this.idByKey.has(record.key)) throw new ConflictError('an instance with this key already exists');
    this.byId.set(record.id, copyOf(record));
    this.idByKey.set(record.key, record.id);
  }

  async get(id: string): Promise<InstanceRecord | null> {
    const record = this.byId.get(id);
    return record ? copyOf(record) : null;
  }

  async findByKey(key: string): Promise<InstanceRecord | null> {
    const id = this.idByKey.get(key);
    return id === undefined ? null : this.get(id);
  }

  async list(): Promise<InstanceRecord[]> {
    return [...this.byId.values()].sort((a, b) => a.createdAt - b.createdAt).map(copyOf);
  }

  async update(id: string, patch: Partial<Omit<InstanceRecord, 'id'>>): Promise<InstanceRecord> {
    const current = this.byId.get(id);
    if (!current) throw new NotFoundError(`instance ${id}`);
    const next = copyOf(mergeInstance(current, patch));
    if (next.key !== current.key) {
      if (this.idByKey.has(next.key)) throw new ConflictError('an instance with this key already exists');
      this.idByKey.delete(current.key);
      this.idByKey.set(next.key, id);
    }
    this.byId.set(id, next);
    return copyOf(next);
  }

  async delete(id: string): Promise<boolean> {
    const record = this.byId.get(id);
    if (!record) return false;
    this.byId.delete(id);
    this.idByKey.delete(record.key);
    return true;
  }
}
