import { UnauthorizedError } from '@parley/core';
import { bearerDigest, type AdminToken } from './admin-token.js';

/** Who called a `credential` route (`/mcp`): the admin, or the holder of one instance's key. */
export type Principal = { kind: 'admin' } | { kind: 'instance'; id: string; key: string };

/**
 * The check of `credential` routes: `Authorization: Bearer` with the admin token (compared in
 * constant time, as on admin routes) or an instance key (found as the REST API finds a key in a
 * path). Anything else is 401, which the failure limiter counts like a wrong admin token.
 */
export function credentialVerifier(admin: AdminToken, findByKey: (key: string) => Promise<{ id: string } | null | undefined>): (header: string | undefined) => Promise<Principal> {
  return async (header) => {
    const digest = bearerDigest(header);
    if (!digest) throw new UnauthorizedError('an instance key or the admin token is required: Authorization: Bearer <key or token>');
    if (admin.matches(digest)) return { kind: 'admin' };
    const key = /^Bearer\s+(\S+)\s*$/i.exec(header!)![1]!;
    const record = await findByKey(key);
    if (!record) throw new UnauthorizedError('invalid instance key or admin token');
    return { kind: 'instance', id: record.id, key };
  };
}
