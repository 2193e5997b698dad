import assert from 'node:assert/strict';
import type { Phone } from './conversation.js';

/** Asserts an error answer: the HTTP status and the body's `status` and `error.code`, and the message when given (exact, or matching). */
export function expectError(res: { status: number; body: any }, status: number, code: string, message?: string | RegExp): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.status, status);
  assert.equal(res.body.error.code, code);
  if (typeof message === 'string') assert.equal(res.body.error.message, message);
  else if (message) assert.match(res.body.error.message, message);
}

/** What each phone sees of one shared record (a group, a community), asserted identical for all; answers it. */
export async function sameViewForAll<T>(members: Phone[], view: (p: Phone) => Promise<T>): Promise<T> {
  const views = await Promise.all(members.map(view));
  for (const other of views.slice(1)) assert.deepEqual(other, views[0]);
  return views[0]!;
}
