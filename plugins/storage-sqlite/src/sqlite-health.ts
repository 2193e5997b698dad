import Database from 'better-sqlite3';
import { ServiceUnavailableError, type StorageHealth } from '@parley/core';

/** Result codes of a write that found no room or no working disk: the store cannot write for now. */
const CANNOT_WRITE = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|NOLFS)/;

/** Result codes of a damaged file: nothing will fix it short of a repair or a restore. */
const CORRUPT = /^SQLITE_(CORRUPT|NOTADB)/;

/** While writes fail, a probe write is tried this often (ms), from a timer: `/readyz` itself never writes. */
export const WRITE_PROBE_MS = 1_000;

/** What one probe write did: committed, failed, or not tried (a batch was open: next tick). */
export type ProbeResult = 'wrote' | 'failed' | 'skipped';

/** What {@link SqliteHealth} tells the storage's log (each at most once per change of state). */
export interface SqliteHealthEvents {
  /** Writes started failing (the first failure of a run). */
  cannotWrite(detail: string): void;
  /** A probe write committed after writes had failed. */
  canWriteAgain(failedForMs: number): void;
  /** The file was found damaged (once for the life of the process: corruption does not heal). */
  corrupt(detail: string): void;
}

/** The result code of a better-sqlite3 error, or undefined for any other thrown value. */
export function sqliteCode(err: unknown): string | undefined {
  return err instanceof Database.SqliteError ? err.code : undefined;
}

/** True for a result code that says the file is damaged. */
export function isCorruption(code: string | undefined): boolean {
  return code !== undefined && CORRUPT.test(code);
}

/**
 * What the SQLite store learned from its own failures, for readiness. A write that failed for want of
 * space (or a failing disk) makes the store unable to write until a probe write of a few hundred KiB
 * commits, tried every {@link WRITE_PROBE_MS}: a full disk still takes the odd small commit into room
 * left in the WAL file, which says nothing about the next batch. A damaged file makes the store
 * unusable for good. A plain `SELECT 1` saw neither: it reads cached pages and writes nothing.
 */
export class SqliteHealth {
  private writeFailure: { detail: string; since: number } | null = null;
  private corruption: string | null = null;
  private probing: NodeJS.Timeout | undefined;

  constructor(private readonly events: SqliteHealthEvents, private readonly probe: () => ProbeResult) {}

  /** Notes a failed statement or commit (anything but a SQLite error is not the store's state). */
  failed(err: unknown): void {
    const code = sqliteCode(err);
    if (code === undefined) return;
    const detail = `${code} (${(err as Error).message})`;
    if (isCorruption(code)) this.damaged(detail);
    else if (CANNOT_WRITE.test(code) && !this.writeFailure) {
      this.writeFailure = { detail, since: performance.now() };
      this.events.cannotWrite(detail);
      this.probing = setInterval(() => this.tryProbe(), WRITE_PROBE_MS);
      // A store nobody closed must not keep the process alive.
      this.probing.unref();
    }
  }

  /** The file is damaged (found by a failed statement or the integrity check): told once. */
  damaged(detail: string): void {
    if (this.corruption) return;
    this.corruption = detail;
    this.events.corrupt(detail);
  }

  /** Readiness: not ready while the file is damaged or writes fail; otherwise ready when `read` answers. */
  check(read: () => unknown): StorageHealth {
    if (this.corruption) return { ready: false, detail: `database file is damaged: ${this.corruption}` };
    if (this.writeFailure) return { ready: false, detail: `cannot write: ${this.writeFailure.detail}` };
    try {
      read();
      return { ready: true };
    } catch (err) {
      this.failed(err);
      return this.corruption ? this.check(read) : { ready: false, detail: (err as Error).message };
    }
  }

  /** Stops probing (the store closes). */
  stop(): void {
    clearInterval(this.probing);
  }

  private tryProbe(): void {
    if (!this.writeFailure || this.probe() !== 'wrote') return;
    clearInterval(this.probing);
    const failedForMs = Math.round(performance.now() - this.writeFailure.since);
    this.writeFailure = null;
    this.events.canWriteAgain(failedForMs);
  }
}

/** Result codes that mean "the store cannot be reached right now", answered as HTTP 503. */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOLFS)/;

/**
 * Maps an unreachable-store error or a damaged file onto ServiceUnavailableError (the store cannot
 * serve, and readiness says why); anything else passes through.
 */
export function unavailable(err: unknown, message: string): unknown {
  const code = sqliteCode(err);
  if (code !== undefined && UNAVAILABLE.test(code)) return new ServiceUnavailableError(`${message}: ${code}`);
  if (isCorruption(code)) return new ServiceUnavailableError(`sqlite database file is damaged: ${code}`);
  return err;
}
