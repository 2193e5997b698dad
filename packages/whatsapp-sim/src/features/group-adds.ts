import { unixNow } from '../network/network.js';
import type { Network } from '../network/network.js';
import type { Account } from '../network/model.js';
import { allows } from './privacy-rules.js';

/** One asked number's outcome of a participant change; `addRequest` is the invitation a refused add offers (Groups.changeMembers). */
export interface MemberResult {
  number: string;
  status: number;
  addRequest?: { code: string; expiration: number };
}

/** The code of an add the person's privacy refuses (whatsapp-web.js addParticipants: 403 lets only an invitation in). */
export const PRIVACY_REFUSED = 403;

/**
 * How long the invitation of a refused add is valid: 3 days, the simulator's choice (we found no public
 * source for the length WhatsApp gives).
 */
const ADD_REQUEST_SECONDS = 3 * 24 * 3600;

/** Whether `actor` may add `number` to a group: an account whose `groupadd` privacy lets the actor in (privacy-rules.ts). */
export function mayAdd(network: Network, actor: Account, number: string): boolean {
  const account = network.accounts.get(number);
  return !!account && allows(account, actor, 'groupadd');
}

/** The invitation a refused add carries (`<add_request code expiration/>`), valid from now. */
export function addRequest(code: string): { code: string; expiration: number } {
  return { code, expiration: Number(unixNow()) + ADD_REQUEST_SECONDS };
}
