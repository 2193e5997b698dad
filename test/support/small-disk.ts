import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { startTestServer, type TestServer } from './test-server.js';

/**
 * A small tmpfs of the test's own, to run storage on a disk that really fills up (ENOSPC, which
 * SQLite answers SQLITE_FULL): mounted in a fresh temporary directory, filled and emptied by a filler
 * file, and always unmounted by {@link SmallDisk.remove}. Mounting needs root (CI runs as root on
 * Debian); {@link SmallDisk.mount} answers why not otherwise, for the test to skip with.
 */
export class SmallDisk {
  private readonly filler: string;

  private constructor(readonly dir: string) {
    this.filler = join(dir, 'filler');
  }

  /** Mounts a tmpfs of `sizeBytes`; answers the reason instead when this process may not mount. */
  static mount(sizeBytes: number): SmallDisk | string {
    const dir = mkdtempSync(join(tmpdir(), 'parley-small-disk-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
      return new SmallDisk(dir);
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      return `cannot mount a tmpfs (needs root): ${(err as Error).message.split('\n')[0]}`;
    }
  }

  /** Takes every free byte with the filler file (down to single bytes: tmpfs allocates by page). */
  fill(): void {
    const fd = openSync(this.filler, 'a');
    try {
      for (let chunk = 1 << 20; chunk >= 1; chunk >>= 1) {
        const bytes = Buffer.alloc(chunk, 0x5a);
        for (;;) {
          try {
            writeSync(fd, bytes);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
            throw err;
          }
        }
      }
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Fills the disk, then sends `while filling 0`, `while filling 1`, … (`send`, at most 300) until one is refused
   * 503: the WAL file may still have room for a few commits, so the disk is full when a send cannot commit.
   * Answers the texts accepted before it.
   */
  async fillUntilRefused(send: (text: string) => Promise<{ status: number; body: unknown }>): Promise<string[]> {
    this.fill();
    const accepted: string[] = [];
    let full = await send('while filling 0');
    for (let i = 1; full.status === 200 && i < 300; i++) {
      accepted.push(`while filling ${i - 1}`);
      full = await send(`while filling ${i}`);
    }
    assert.equal(full.status, 503, JSON.stringify(full.body));
    return accepted;
  }

  /** Gives the filler's space back. */
  free(): void {
    rmSync(this.filler, { force: true });
  }

  /** Unmounts (lazily, should a file still be open) and removes the directory. */
  remove(): void {
    try {
      execFileSync('umount', ['-l', this.dir], { stdio: 'pipe' });
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

/** 8 MiB: room for the schema, a WAL that grows with every commit, and a filler that takes the rest. */
export const SMALL_DISK_BYTES = 8 << 20;

/**
 * A describe whose tests run on a {@link SmallDisk} of their own ({@link SMALL_DISK_BYTES}), removed after it;
 * skipped, saying why, where this process may not mount one.
 */
export function describeOnSmallDisk(name: string, body: (disk: SmallDisk) => void): void {
  const disk = SmallDisk.mount(SMALL_DISK_BYTES);
  describe(name, { skip: typeof disk === 'string' ? disk : false }, () => {
    if (typeof disk === 'string') return;
    after(() => disk.remove());
    body(disk);
  });
}

/**
 * The real server on SQLite in `disk` (no background checkpoints, so the disk fills when the test says), with
 * the sandbox channel and native webhooks whose retries follow `schedule` (ms), a second's time-out each.
 */
export function startServerOnSmallDisk(disk: SmallDisk, schedule: number[]): Promise<TestServer> {
  return startTestServer({
    storage: 'sqlite', captureLogs: true, dataDir: join(disk.dir, 'server'),
    plugins: [
      { package: '@parley/storage-sqlite', options: { backgroundCheckpoints: false } },
      { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } }, { package: '@parley/webhook-native' },
    ],
    config: { webhooks: { timeoutMs: 1_000, leaseMs: 3_000, retry: { schedule, jitter: 0, maxRetryAfterMs: 1_000 } } },
  });
}

/**
 * For a describe of the storage-full suites: before it, a webhook receiver and {@link startServerOnSmallDisk};
 * after it, the disk's space back, the server stopped and the receiver closed (the disk stays mounted: its
 * owner removes it). Answers them once the suite started.
 */
export function useSmallDiskServer(disk: SmallDisk, schedule: number[]): { readonly t: TestServer; readonly receiver: HttpReceiver } {
  let t: TestServer | undefined;
  let receiver: HttpReceiver | undefined;
  before(async () => {
    receiver = await startHttpReceiver();
    t = await startServerOnSmallDisk(disk, schedule);
  });
  after(async () => {
    disk.free();
    await t?.stop();
    await receiver?.close();
  });
  return {
    get t() {
      return t!;
    },
    get receiver() {
      return receiver!;
    },
  };
}

/** A server log line (pino JSON). */
export interface LogLine { level: number; msg: string; [field: string]: unknown }

/** The server's log lines whose message `matches`. */
export function logLines(t: TestServer, matches: (msg: string) => boolean): LogLine[] {
  return t.logs.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LogLine).filter((l) => matches(l.msg));
}
