import { decodeStored, encodeStored } from '@parley/core';

/**
 * A deep copy with the semantics of a serializing store (undefined fields dropped, Buffers kept as
 * Buffers), rather than structuredClone's (which keeps undefined fields and turns Buffers into plain
 * Uint8Arrays): what memory answers is then exactly what SQLite, Redis or MongoDB would answer.
 */
export function copyOf<T>(value: T): T {
  return decodeStored<T>(encodeStored(value));
}
