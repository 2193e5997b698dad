import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateDir } from '@parley/host';
import { newSecret, privateExistingFile, PRIVATE_FILE_MODE, silentLogger, UnauthorizedError, type Logger } from '@parley/core';

/** SHA-256 of the token of an `Authorization: Bearer <token>` header (undefined without one): compared in constant time. */
export function bearerDigest(header: string | undefined): Buffer | undefined {
  const token = bearerToken(header);
  return token === undefined ? undefined : createHash('sha256').update(token).digest();
}

function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

/**
 * The instance key of a `bearer` route: its `Authorization: Bearer <key>` header, else its
 * `access_token` query parameter (the Graph API takes either, and clients such as Chatwoot send the
 * latter); 401 without one.
 */
export function instanceBearer(header: string | undefined, query: unknown): string {
  const token = bearerToken(header) ?? (typeof query === 'string' && query !== '' ? query : undefined);
  if (token === undefined) throw new UnauthorizedError('an instance key is required: Authorization: Bearer <instance key>');
  return token;
}

/**
 * The check of `GET /metrics`: the admin token, or `metricsToken` when one is configured (a scraper
 * need not hold the admin token). Throws 401 otherwise.
 */
export function metricsVerifier(admin: AdminToken, metricsToken?: string): (header: string | undefined) => void {
  const metricsDigest = metricsToken === undefined ? undefined : createHash('sha256').update(metricsToken).digest();
  return (header) => {
    const given = bearerDigest(header);
    if (!given) throw new UnauthorizedError('metrics token or admin token required: Authorization: Bearer <token>');
    if (!admin.matches(given) && !(metricsDigest && timingSafeEqual(given, metricsDigest))) throw new UnauthorizedError('invalid metrics token');
  };
}

/** Where the admin token comes from, for the banner. */
export type AdminTokenSource = { kind: 'env' } | { kind: 'file'; path: string; generated: boolean };

/** The admin token: `PARLEY_ADMIN_TOKEN`, or one generated at first start and kept in the data directory. */
export class AdminToken {
  private readonly digest: Buffer;

  private constructor(
    readonly value: string,
    readonly source: AdminTokenSource,
  ) {
    this.digest = createHash('sha256').update(value).digest();
  }

  /**
   * Loads or generates the token. The file is created 0600 in a 0700 directory; an existing file
   * readable by others is tightened to 0600, with a warning.
   */
  static load(dataDir: string, fromEnv?: string, logger: Logger = silentLogger): AdminToken {
    if (fromEnv) {
      if (fromEnv.length < 16) throw new Error('PARLEY_ADMIN_TOKEN must be at least 16 characters');
      return new AdminToken(fromEnv, { kind: 'env' });
    }
    const path = join(dataDir, 'admin-token');
    if (existsSync(path)) {
      if (privateExistingFile(path)) logger.warn({ file: path }, 'admin token file was readable by other users: permissions tightened to 0600');
      return new AdminToken(readFileSync(path, 'utf8').trim(), { kind: 'file', path, generated: false });
    }
    privateDir(dataDir);
    const token = newSecret(32);
    // 'wx': a file that appeared meanwhile is never overwritten (nor given a token it did not hold).
    writeFileSync(path, `${token}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    return new AdminToken(token, { kind: 'file', path, generated: true });
  }

  /** Checks an `Authorization: Bearer <token>` header in constant time; throws 401 otherwise. */
  verify(header: string | undefined): void {
    const given = bearerDigest(header);
    if (!given) throw new UnauthorizedError('admin token required: Authorization: Bearer <token>');
    if (!this.matches(given)) throw new UnauthorizedError('invalid admin token');
  }

  /** Whether a {@link bearerDigest} is this token's (constant time). */
  matches(digest: Buffer): boolean {
    return timingSafeEqual(digest, this.digest);
  }
}
