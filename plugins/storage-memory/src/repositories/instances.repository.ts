import {
  ConflictError, mergeInstance, NotFoundError, UniqueClaimConflictError, type InstancePage, type InstancePageRequest, type InstanceRecord,
  type InstanceRepository, type UniqueClaim,
} from '@parley/core';
import { copyOf } from '../copy.js';

export class MemoryInstanceRepository implements InstanceRepository {
  /** Insertion order breaks createdAt ties in `list`. */
  private readonly byId = new Map<string, InstanceRecord>();
  private readonly idByKey = new Map<string, string>();
  /** Unique claims: holder id by `claimKey`, and the claim keys each instance holds (released on delete). */
  private readonly holderByClaim = new Map<string, string>();
  private readonly claimsById = new Map<string, string[]>();
  /** Creation order for pages: ascending sequence numbers (binary-searched) and the id each names. */
  private readonly order: { seq: number; id: string }[] = [];
  private readonly seqById = new Map<string, number>();
  private lastSeq = 0;

  async create(record: InstanceRecord, claims: readonly UniqueClaim[] = []): Promise<void> {
    if (this.byId.has(record.id)) throw new ConflictError(`instance ${record.id} already exists`);
    if (this.idByKey.has(record.key)) throw new ConflictError('an instance with this key already exists');
    const taken = claims.find((claim) => this.holderByClaim.has(claimKey(claim)));
    if (taken) throw new UniqueClaimConflictError(taken);
    // No await above: the checks and the writes below happen in one turn of the event loop.
    this.byId.set(record.id, copyOf(record));
    this.idByKey.set(record.key, record.id);
    const keys = claims.map(claimKey);
    for (const key of keys) this.holderByClaim.set(key, record.id);
    if (keys.length) this.claimsById.set(record.id, keys);
    this.order.push({ seq: ++this.lastSeq, id: record.id });
    this.seqById.set(record.id, this.lastSeq);
  }

  async claim(id: string, claims: readonly UniqueClaim[]): Promise<void> {
    if (!this.byId.has(id)) throw new NotFoundError(`instance ${id}`);
    const taken = claims.find((claim) => (this.holderByClaim.get(claimKey(claim)) ?? id) !== id);
    if (taken) throw new UniqueClaimConflictError(taken);
    const held = this.claimsById.get(id) ?? [];
    for (const key of claims.map(claimKey)) {
      if (this.holderByClaim.has(key)) continue;
      this.holderByClaim.set(key, id);
      held.push(key);
    }
    this.claimsById.set(id, held);
  }

  async claimsOf(id: string): Promise<UniqueClaim[]> {
    return (this.claimsById.get(id) ?? []).toSorted().map((key) => {
      const [namespace, value] = key.split('\0') as [string, string];
      return { namespace, value };
    });
  }

  async claimHolder(namespace: string, value: string): Promise<string | null> {
    return this.holderByClaim.get(claimKey({ namespace, value })) ?? null;
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

  async listPage({ limit, after }: InstancePageRequest): Promise<InstancePage> {
    const start = this.firstAfter(after === undefined ? 0 : Number(after));
    const page = this.order.slice(start, start + limit);
    const more = start + limit < this.order.length;
    return { items: page.map(({ id }) => copyOf(this.byId.get(id)!)), ...(more ? { next: String(page[page.length - 1]!.seq) } : {}) };
  }

  /** Index in {@link order} of the first entry with a sequence number above `seq`. */
  private firstAfter(seq: number): number {
    let low = 0;
    let high = this.order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.order[mid]!.seq <= seq) low = mid + 1;
      else high = mid;
    }
    return low;
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
    for (const key of this.claimsById.get(id) ?? []) this.holderByClaim.delete(key);
    this.claimsById.delete(id);
    const seq = this.seqById.get(id)!;
    this.seqById.delete(id);
    this.order.splice(this.firstAfter(seq - 1), 1);
    return true;
  }
}

/** One map key per claim; the NUL cannot occur in a namespace name. */
function claimKey(claim: UniqueClaim): string {
  return `${claim.namespace}\0${claim.value}`;
}
