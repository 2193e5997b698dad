import { createHash, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newSecret, UnauthorizedError } from '@parley/core';

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

  /** Loads or generates the token (file mode 0600). */
  static load(dataDir: string, fromEnv?: string): AdminToken {
    if (fromEnv) {
      if (fromEnv.length < 16) throw new Error('PARLEY_ADMIN_TOKEN must be at least 16 characters');
      return new AdminToken(fromEnv, { kind: 'env' });
    }
    const path = join(dataDir, 'admin-token');
    if (existsSync(path)) return new AdminToken(readFileSync(path, 'utf8').trim(), { kind: 'file', path, generated: false });
    mkdirSync(dataDir, { recursive: true });
    const token = newSecret(32);
    writeFileSync(path, `${token}\n`, { mode: 0o600 });
    chmodSync(path, 0o600);
    return new AdminToken(token, { kind: 'file', path, generated: true });
  }

  /** Checks an `Authorization: Bearer <token>` header in constant time; throws 401 otherwise. */
  verify(header: string | undefined): void {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match) throw new UnauthorizedError('admin token required: Authorization: Bearer <token>');
    const given = createHash('sha256').update(match[1]!).digest();
    if (!timingSafeEqual(given, this.digest)) throw new UnauthorizedError('invalid admin token');
  }
}
