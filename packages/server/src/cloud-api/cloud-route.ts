import { ParleyError } from '@parley/core';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { cloudErrorEnvelope } from './cloud-errors.js';
import { s } from '../http/schema.js';
import { VERSION_SEGMENT, versionParam } from './cloud-schemas.js';

/**
 * What every Graph path of the surface declares: its tag, the instance key as a bearer token, the
 * Cloud API's error envelope, and the version segment that tells its paths from `/{key}/…`.
 */
export const CLOUD_ROUTE = { tag: 'Cloud API', auth: 'bearer', errorEnvelope: cloudErrorEnvelope, pathGuard: { version: VERSION_SEGMENT } } as const;

/** The instance the token opened must be the one the path (or the query) names: 400, code 100, subcode 33 otherwise. */
export function samePhone(scope: InstanceRuntime, phoneNumberId?: string): void {
  if (phoneNumberId !== undefined && phoneNumberId !== scope.id) {
    throw new ParleyError(400, 'phone_number_mismatch', `Object with ID '${phoneNumberId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`);
  }
}

/** `{version}/{phoneNumberId}` of the paths under a phone number. */
export const phoneParams = s.object({ version: versionParam, phoneNumberId: s.text(128, { description: 'The instance id (what the meta webhooks carry as metadata.phone_number_id).' }) }, ['version', 'phoneNumberId']);
