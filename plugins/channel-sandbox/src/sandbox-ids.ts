import { createHash } from 'node:crypto';

/** Deterministic LID of a sandbox number (`<15 digits>@lid`). */
export function lidOf(number: string): string {
  const digest = createHash('sha256').update(`sandbox-lid:${number}`).digest();
  return `${digest.readBigUInt64BE(0).toString().slice(0, 15).padStart(15, '1')}@lid`;
}
