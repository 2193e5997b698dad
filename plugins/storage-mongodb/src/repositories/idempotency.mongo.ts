import type { IdempotencyClaim, IdempotencyCompletion, IdempotencyRecord, IdempotencyStore, IdempotentAnswer } from '@parley/core';
import type { MongoCollections } from '../mongo-collections.js';
import { isDuplicate, type MongoConnection } from '../mongo-connection.js';
import type { IdempotencyDocument } from '../mongo-documents.js';

/**
 * Idempotency keys: one document per scope and key (`_id` joins them). A claim is an upsert that
 * matches only an expired document, so a live one makes it fail on the unique `_id` (E11000) and
 * the live one is answered instead: of concurrent claims exactly one inserts. `removeAt` carries a
 * TTL index that deletes expired keys.
 */
export class MongoIdempotencyStore implements IdempotencyStore {
  constructor(private readonly connection: MongoConnection, private readonly collections: MongoCollections) {}

  async begin(scope: string, key: string, claim: IdempotencyClaim): Promise<IdempotencyRecord | null> {
    const _id = documentId(scope, key);
    // A claim that lost to one that then expired (or was released) before the read tries again, a bounded number of times.
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.connection.run((db) => this.collections.idempotency(db).updateOne(
          { _id, expiresAt: { $lte: claim.now } },
          {
            $set: { state: 'in_progress', fingerprint: claim.fingerprint, owner: claim.owner, expiresAt: claim.expiresAt, removeAt: new Date(claim.expiresAt) },
            $unset: { answer: '' },
          },
          { upsert: true },
        ));
        return null;
      } catch (err) {
        if (!isDuplicate(err)) throw err;
      }
      const live = await this.get(scope, key, claim.now);
      if (live) return live;
    }
    throw new Error('idempotency key changed hands during every claim attempt');
  }

  async complete(scope: string, key: string, done: IdempotencyCompletion): Promise<boolean> {
    const result = await this.connection.run((db) => this.collections.idempotency(db).updateOne(
      { _id: documentId(scope, key), owner: done.owner, state: 'in_progress' },
      { $set: { state: 'done', answer: JSON.stringify(done.answer), expiresAt: done.expiresAt, removeAt: new Date(done.expiresAt) } },
    ));
    return result.matchedCount > 0;
  }

  async release(scope: string, key: string, owner: string): Promise<void> {
    await this.connection.run((db) => this.collections.idempotency(db).deleteOne({ _id: documentId(scope, key), owner, state: 'in_progress' }));
  }

  async get(scope: string, key: string, now: number): Promise<IdempotencyRecord | null> {
    const document = await this.connection.run((db) => this.collections.idempotency(db).findOne({ _id: documentId(scope, key) }));
    if (!document || document.expiresAt <= now) return null;
    return {
      state: document.state, fingerprint: document.fingerprint, owner: document.owner, expiresAt: document.expiresAt,
      ...(document.answer === undefined ? {} : { answer: JSON.parse(document.answer) as IdempotentAnswer }),
    };
  }
}

function documentId(scope: string, key: string): string {
  return `${scope}\u0000${key}`;
}
