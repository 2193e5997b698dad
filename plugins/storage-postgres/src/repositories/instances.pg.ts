import {
  ConflictError, decodeStored, encodeStored, mergeInstance, NotFoundError, UniqueClaimConflictError, type InstancePage,
  type InstancePageRequest, type InstanceRecord, type InstanceRepository, type UniqueClaim,
} from '@parley/core';
import type { RecordRow } from '@parley/storage-sql';
import type { PgDatabase, Queryable } from '../pg-database.js';
import { isUniqueViolation } from './unique-violation.js';

/** Instances by id, with an index on the secret key and a table of unique claims in the same transactions. */
export class PgInstanceRepository implements InstanceRepository {
  constructor(private readonly db: PgDatabase) {}

  async create(record: InstanceRecord, claims: readonly UniqueClaim[] = []): Promise<void> {
    await this.db.transaction(async (tx) => {
      try {
        await tx.run('INSERT INTO instances (id, key, created_at, record) VALUES ($1, $2, $3, $4)',
          [record.id, record.key, record.createdAt, encodeStored(record)]);
      } catch (err) {
        // The message never holds the key: keys are secrets.
        if (isUniqueViolation(err, 'instances_key_unique')) throw new ConflictError('an instance with this key already exists');
        if (isUniqueViolation(err)) throw new ConflictError(`instance ${record.id} already exists`);
        throw err;
      }
      await insertClaims(tx, record.id, claims);
    });
  }

  async claim(id: string, claims: readonly UniqueClaim[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (!await tx.get('SELECT 1 AS found FROM instances WHERE id = $1 FOR SHARE', [id])) throw new NotFoundError(`instance ${id}`);
      await insertClaims(tx, id, claims);
    });
  }

  async claimsOf(id: string): Promise<UniqueClaim[]> {
    return this.db.all<{ namespace: string; value: string }>('SELECT namespace, value FROM instance_claims WHERE instance = $1 ORDER BY namespace, value', [id]);
  }

  async claimHolder(namespace: string, value: string): Promise<string | null> {
    return (await this.db.get<{ instance: string }>('SELECT instance FROM instance_claims WHERE namespace = $1 AND value = $2', [namespace, value]))?.instance ?? null;
  }

  async get(id: string): Promise<InstanceRecord | null> {
    return read(await this.db.get<RecordRow>('SELECT record FROM instances WHERE id = $1', [id]));
  }

  async findByKey(key: string): Promise<InstanceRecord | null> {
    return read(await this.db.get<RecordRow>('SELECT record FROM instances WHERE key = $1', [key]));
  }

  async list(): Promise<InstanceRecord[]> {
    return (await this.db.all<RecordRow>('SELECT record FROM instances ORDER BY created_at, seq')).map((row) => decodeStored<InstanceRecord>(row.record));
  }

  async listPage({ limit, after }: InstancePageRequest): Promise<InstancePage> {
    // A range of the primary key, one more row to know whether more follow.
    const rows = await this.db.all<RecordRow & { seq: number }>('SELECT seq, record FROM instances WHERE seq > $1 ORDER BY seq LIMIT $2',
      [after === undefined ? 0 : Number(after), limit + 1]);
    const page = rows.slice(0, limit);
    return {
      items: page.map((row) => decodeStored<InstanceRecord>(row.record)),
      ...(rows.length > limit ? { next: String(page[page.length - 1]!.seq) } : {}),
    };
  }

  async update(id: string, patch: Partial<Omit<InstanceRecord, 'id'>>): Promise<InstanceRecord> {
    return this.db.transaction(async (tx) => {
      const current = read(await tx.get<RecordRow>('SELECT record FROM instances WHERE id = $1 FOR UPDATE', [id]));
      if (!current) throw new NotFoundError(`instance ${id}`);
      const text = encodeStored(mergeInstance(current, patch));
      const next = decodeStored<InstanceRecord>(text);
      try {
        await tx.run('UPDATE instances SET key = $1, created_at = $2, record = $3 WHERE id = $4', [next.key, next.createdAt, text, id]);
      } catch (err) {
        if (isUniqueViolation(err, 'instances_key_unique')) throw new ConflictError('an instance with this key already exists');
        throw err;
      }
      return next;
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      await tx.run('DELETE FROM instance_claims WHERE instance = $1', [id]);
      return await tx.run('DELETE FROM instances WHERE id = $1', [id]) > 0;
    });
  }
}

/** Inside a transaction: inserts claims, keeping those `id` holds already; throws on another holder (rolling back). */
async function insertClaims(tx: Queryable, id: string, claims: readonly UniqueClaim[]): Promise<void> {
  for (const claim of claims) {
    // ON CONFLICT waits for a concurrent transaction inserting the same claim, so of two creations one wins.
    const inserted = await tx.run('INSERT INTO instance_claims (namespace, value, instance) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [claim.namespace, claim.value, id]);
    if (inserted > 0) continue;
    const holder = await tx.get<{ instance: string }>('SELECT instance FROM instance_claims WHERE namespace = $1 AND value = $2', [claim.namespace, claim.value]);
    if (holder?.instance !== id) throw new UniqueClaimConflictError(claim);
  }
}

function read(row: RecordRow | undefined): InstanceRecord | null {
  return row ? decodeStored<InstanceRecord>(row.record) : null;
}
