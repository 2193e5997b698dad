import { isParleyError, ParleyError } from '../errors.js';

/**
 * A fenced write refused: another node took the instance (its fencing token moved on), so this node
 * must not write the instance's channel state any more. HTTP 503 `lease_lost` if it reaches a client.
 */
export class FencedOffError extends ParleyError {
  constructor(instance: string) {
    super(503, 'lease_lost', `this node no longer owns instance ${instance}; its write was refused`);
  }
}

/** True for a {@link FencedOffError}, also across duplicated module copies. */
export function isFencedOff(err: unknown): boolean {
  return isParleyError(err) && err.code === 'lease_lost';
}
