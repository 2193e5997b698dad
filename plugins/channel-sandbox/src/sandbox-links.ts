import { randomUUID } from 'node:crypto';
import { newUlid, type Clock, type Logger, type Storage } from '@parley/core';

/** How many closed links per phone the record keeps (older ones are pruned when the phone links again). */
export const KEPT_LINKS = 20;

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
 * The network's record of which process had each phone online, and when: one document per link in
 * the shared storage (never fenced, so it shows what happened, not what a lease allowed). On a network
 * that spans several nodes this is what proves no account ever had two live connections at once.
 */
export class SandboxLinks {
  /** This process, as the record names it. */
  readonly process = randomUUID();
  /** Open links of this process, by number: document id and content. */
  private readonly open = new Map<string, { id: string; link: SandboxLink }>();

  constructor(private readonly storage: Storage, private readonly clock: Clock, private readonly logger: Logger) {}

  /** Records a link opening (before the phone goes online) and prunes the phone's oldest closed links. */
  async opened(number: string, instanceId: string): Promise<void> {
    const namespace = linksNamespace(number);
    const link: SandboxLink = { instanceId, process: this.process, pid: process.pid, openedAt: this.clock.now() };
    const id = newUlid(link.openedAt);
    await this.storage.state.put(namespace, id, link);
    this.open.set(number, { id, link });
    const closed = (await this.storage.state.list<SandboxLink>(namespace)).filter((d) => d.value.closedAt !== undefined);
    await Promise.all(closed.slice(0, Math.max(0, closed.length - KEPT_LINKS)).map((d) => this.storage.state.delete(namespace, d.id)));
  }

  /** Records the link of a phone that went offline as closed (a failed write is logged: the link then stays open in the record). */
  async closed(number: string): Promise<void> {
    const open = this.open.get(number);
    if (!open) return;
    this.open.delete(number);
    await this.storage.state.put(linksNamespace(number), open.id, { ...open.link, closedAt: this.clock.now() })
      .catch((err: unknown) => this.logger.error({ err, number }, 'sandbox link record not closed'));
  }
}
