import {
  ConflictError, decodeStored, encodeStored, mergeInstance, NotFoundError, UniqueClaimConflictError, type InstancePage,
  type InstancePageRequest, type InstanceRecord, type InstanceRepository, type UniqueClaim,
} from '@parley/core';
import type { RecordRow } from '@parley/storage-sql';
import type { SqliteDatabase } from '../sqlite-database.js';

export class SqliteInstanceRepository implements InstanceRepository {
  constructor(private readonly db: SqliteDatabase) {}

  async create(record: InstanceRecord, claims: readonly UniqueClaim[] = []): Promise<void> {
    // One savepoint: a refused claim rolls the record back too.
    this.db.transaction(() => {
      if (this.db.get('SELECT 1 AS found FROM instances WHERE id = +?', [record.id])) throw new ConflictError(`instance ${record.id} already exists`);
      this.assertKeyFree(record.key);
      this.db.run('INSERT INTO instances (id, key, created_at, record) VALUES (?, ?, ?, ?)', [record.id, record.key, record.createdAt, encodeStored(record)]);
      this.insertClaims(record.id, claims);
    });
  }

  async claim(id: string, claims: readonly UniqueClaim[]): Promise<void> {
    this.db.transaction(() => {
      if (!this.db.get('SELECT 1 AS found FROM instances WHERE id = +?', [id])) throw new NotFoundError(`instance ${id}`);
      this.insertClaims(id, claims);
    });
  }

  /** Inside a transaction: inserts claims, keeping those `id` holds already; throws on another holder. */
  private insertClaims(id: string, claims: readonly UniqueClaim[]): void {
    for (const claim of claims) {
      const inserted = this.db.run('INSERT INTO instance_claims (namespace, value, instance) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
        [claim.namespace, claim.value, id]);
      if (inserted === 0 && this.holder(claim) !== id) throw new UniqueClaimConflictError(claim);
    }
  }

  private holder(claim: UniqueClaim): string | undefined {
    return this.db.get<{ instance: string }>('SELECT instance FROM instance_claims WHERE namespace = +? AND value = +?', [claim.namespace, claim.value])?.instance;
  }

  async claimsOf(id: string): Promise<UniqueClaim[]> {
    return this.db.all<{ namespace: string; value: string }>('SELECT namespace, value FROM instance_claims WHERE instance = +? ORDER BY namespace, value', [id])
      .map((row) => ({ ...row }));
  }

  async claimHolder(namespace: string, value: string): Promise<string | null> {
    return this.holder({ namespace, value }) ?? null;
  }

  async get(id: string): Promise<InstanceRecord | null> {
    return this.read(this.db.get<RecordRow>('SELECT record FROM instances WHERE id = +?', [id]));
  }

  async findByKey(key: string): Promise<InstanceRecord | null> {
    return this.read(this.db.get<RecordRow>('SELECT record FROM instances WHERE key = +?', [key]));
  }

  async list(): Promise<InstanceRecord[]> {
    return this.db.all<RecordRow>('SELECT record FROM instances ORDER BY created_at, seq').map((row) => decodeStored<InstanceRecord>(row.record));
  }

  async listPage({ limit, after }: InstancePageRequest): Promise<InstancePage> {
    // `seq` aliases the rowid: a range of the table's own b-tree, one more row to know if more follow.
    const rows = this.db.all<RecordRow & { seq: number }>('SELECT seq, record FROM instances WHERE seq > +? ORDER BY seq LIMIT ?',
      [after === undefined ? 0 : Number(after), limit + 1]);
    const page = rows.slice(0, limit);
    return {
      items: page.map((row) => decodeStored<InstanceRecord>(row.record)),
      ...(rows.length > limit ? { next: String(page[page.length - 1]!.seq) } : {}),
    };
  }

  async update(id: string, patch: Partial<Omit<InstanceRecord, 'id'>>): Promise<InstanceRecord> {
    return this.db.transaction(() => {
      const current = this.read(this.db.get<RecordRow>('SELECT record FROM instances WHERE id = +?', [id]));
      if (!current) throw new NotFoundError(`instance ${id}`);
      const next = mergeInstance(current, patch);
      if (next.key !== current.key) this.assertKeyFree(next.key);
      const text = encodeStored(next);
      this.db.run('UPDATE instances SET key = ?, created_at = ?, record = ? WHERE id = +?', [next.key, next.createdAt, text, id]);
      return decodeStored<InstanceRecord>(text);
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.db.run('DELETE FROM instance_claims WHERE instance = +?', [id]);
      return this.db.run('DELETE FROM instances WHERE id = +?', [id]) > 0;
    });
  }

  /** The message never holds the key: keys are secrets. */
  private assertKeyFree(key: string): void {
    if (this.db.get('SELECT 1 AS found FROM instances WHERE key = +?', [key])) throw new ConflictError('an instance with this key already exists');
  }

  private read(row: RecordRow | undefined): InstanceRecord | null {
    return row ? decodeStored<InstanceRecord>(row.record) : null;
  }
}
