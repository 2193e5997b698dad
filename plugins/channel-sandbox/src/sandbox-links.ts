import { randomUUID } from 'node:crypto';
import { newUlid, type Clock, type Logger, type Storage } from '@parley/core';

/** How many closed links per phone the record keeps (older ones are pruned when the phone links again). */
export const KEPT_LINKS = 20;

/**
 * Further attempts to record a link closed after the first failed: pauses doubling from 250 ms up to
 * 5 s (a link that answers again is written within 5 s), for 2 minutes at most.
 */
const CLOSE_RETRY = { firstMs: 250, maxMs: 5000, forMs: 120_000 };

/**
 * One link of a phone to the network — what a socket to WhatsApp's servers is for a real account:
 * opened before the phone goes online on a process, closed after it went offline there. A process that
 * dies without going offline (SIGKILL) leaves its link open; it ended when the process did.
 */
export interface SandboxLink {
  instanceId: string;
  /** The network process (one per server process) the phone was online on. */
  process: string;
  /** That process's operating-system pid. */
  pid: number;
  /** Unix milliseconds on the server's clock, taken before the phone went online. */
  openedAt: number;
  /** Unix milliseconds, taken after the phone went offline; absent while open (or when the process died). */
  closedAt?: number;
}

/** Namespace of a phone's links, by number: a phone that moves between instances or nodes keeps one record. */
export function linksNamespace(number: string): string {
  return `sandbox:links:${number}`;
}

/** A phone's recorded links, oldest first (for tests and diagnostics: who had the account online, when). */
export async function sandboxLinks(storage: Storage, number: string): Promise<SandboxLink[]> {
  return (await storage.state.list<SandboxLink>(linksNamespace(number))).map((d) => d.value);
}

/**
 * The write of one link's close record: tried at once, then again after pauses ({@link CLOSE_RETRY})
 * until it is written, until the retries' time is up, or — once the process stops ({@link hurry}) —
 * after one more answer from storage.
 */
class CloseWrite {
  /** Resolves after the first attempt, whatever its outcome. */
  readonly firstAttempt: Promise<void>;
  /** Resolves true once written, false once given up. */
  readonly done: Promise<boolean>;
  /** The last attempt's error. */
  lastError: unknown;
  private stopping = false;
  private wake?: () => void;

  constructor(readonly number: string, private readonly write: () => Promise<void>, logger: Logger) {
    const first = write();
    this.firstAttempt = first.then(() => undefined, (err: unknown) => {
      // Stopping, it is not tried again: the stop says what it gave up.
      if (!this.stopping) logger.warn({ err, number }, 'sandbox link record not closed yet; trying again');
    });
    this.done = first.then(() => true, (err: unknown) => {
      this.lastError = err;
      return this.retry();
    });
  }

  /**
   * The process stops: the pause before the next attempt ends now, and that attempt (or the one under
   * way) is the last: storage that still fails then is not waited for past the stop.
   */
  hurry(): void {
    this.stopping = true;
    this.wake?.();
  }

  private async retry(): Promise<boolean> {
    const until = performance.now() + CLOSE_RETRY.forMs;
    for (let delay = CLOSE_RETRY.firstMs; !this.stopping && performance.now() < until; delay = Math.min(delay * 2, CLOSE_RETRY.maxMs)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay).unref();
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      try {
        await this.write();
        return true;
      } catch (err) {
        this.lastError = err;
      }
    }
    return false;
  }
}

/**
 * The network's record of which process had each phone online, and when: one document per link in
 * the shared storage (never fenced, so it shows what happened, not what a lease allowed). On a network
 * that spans several nodes this is what proves no account ever had two live connections at once.
 */
export class SandboxLinks {
  /** This process, as the record names it. */
  readonly process = randomUUID();
  /** Open links of this process, by number: document id and content. */
  private readonly open = new Map<string, { id: string; link: SandboxLink }>();
  /** Close records being written (first attempt under way, or being retried). */
  private readonly closing = new Set<CloseWrite>();
  /** Set by {@link settle}: the process is stopping. */
  private stopping = false;

  constructor(private readonly storage: Storage, private readonly clock: Clock, private readonly logger: Logger) {}

  /** Records a link opening (before the phone goes online) and prunes the phone's oldest closed links in the background. */
  async opened(number: string, instanceId: string): Promise<void> {
    const namespace = linksNamespace(number);
    const link: SandboxLink = { instanceId, process: this.process, pid: process.pid, openedAt: this.clock.now() };
    const id = newUlid(link.openedAt);
    try {
      await this.storage.state.put(namespace, id, link);
    } catch (err) {
      // Unanswered is not unwritten (the answer may be what was lost): the phone does not go online, so its link is closed now.
      this.open.set(number, { id, link });
      await this.closed(number);
      throw err;
    }
    this.open.set(number, { id, link });
    // Housekeeping, not awaited: it must neither delay the phone going online nor fail it (its link would then never be closed).
    this.prune(namespace).catch((err: unknown) => this.logger.warn({ err, number }, 'old sandbox link records not pruned; pruned at the next link'));
  }

  private async prune(namespace: string): Promise<void> {
    const closed = (await this.storage.state.list<SandboxLink>(namespace)).filter((d) => d.value.closedAt !== undefined);
    await Promise.all(closed.slice(0, Math.max(0, closed.length - KEPT_LINKS)).map((d) => this.storage.state.delete(namespace, d.id)));
  }

  /**
   * Records the link of a phone that went offline as closed, at the time it went offline. A failed
   * write (storage unreachable: the very outage that may have stopped the phone) is tried again in the
   * background ({@link CLOSE_RETRY}), and logged if it never succeeds: the link then stays open
   * in the record. Resolves after the first attempt.
   */
  async closed(number: string): Promise<void> {
    const open = this.open.get(number);
    if (!open) return;
    this.open.delete(number);
    const closed = { ...open.link, closedAt: this.clock.now() };
    const write = new CloseWrite(number, () => this.storage.state.put(linksNamespace(number), open.id, closed), this.logger);
    if (this.stopping) write.hurry();
    this.closing.add(write);
    void write.done.then((written) => {
      this.closing.delete(write);
      // Given up while stopping: settle() says so, once for all of them.
      if (!written && !this.stopping) this.logger.error({ err: write.lastError, number }, 'sandbox link record not closed');
    });
    await write.firstAttempt;
  }

  /**
   * A graceful stop, before storage closes (the driver's close): every close record still being
   * written is tried again at once — the retries' pauses would outlast the process — or its attempt
   * under way is awaited. Resolves once each is written or given up: its attempt failed (storage
   * still fails: nothing says it will answer before the stop must end), or `shutdown` aborted (the
   * stop's time is spent). What was given up is logged in one line: those links stay open in the record.
   */
  async settle(shutdown: AbortSignal): Promise<void> {
    this.stopping = true;
    const writes = [...this.closing];
    for (const write of writes) write.hurry();
    const aborted = Promise.withResolvers<undefined>();
    const onAbort = () => aborted.resolve(undefined);
    if (shutdown.aborted) onAbort();
    else shutdown.addEventListener('abort', onAbort, { once: true });
    const outcomes = await Promise.race([Promise.all(writes.map((w) => w.done)), aborted.promise]);
    shutdown.removeEventListener('abort', onAbort);
    const left = outcomes ? writes.filter((_, i) => !outcomes[i]) : [...this.closing];
    if (!left.length) return;
    this.logger.error(
      { err: left[0]!.lastError, numbers: left.map((w) => w.number) },
      outcomes ? 'sandbox link records not closed at shutdown: storage still failing; those links stay open in the record'
        : 'sandbox link records not closed at shutdown: shutdownTimeoutMs spent; those links stay open in the record',
    );
  }
}
