import type { EventSink, HealthStatus } from '@parley/core';
import type { NewChatMessageCapInfo, ReachoutTimelockState } from '@whiskeysockets/baileys';
import type { HealthPolicy } from '../options.js';

/** What restricted the account. Each source is lifted only by its own positive signal. */
type Source = 'failed-sends' | 'timelock' | 'message-cap' | 'forbidden';

interface Restriction {
  reason: string;
  shouldPause: boolean;
  shouldRotate: boolean;
}

const LIFTED: Record<Source, string> = {
  'failed-sends': 'messages are accepted again',
  timelock: 'the reach-out timelock was lifted',
  'message-cap': 'the new-chat message cap no longer applies',
  forbidden: 'the connection was accepted again',
};

/**
 * Turns WhatsApp's restriction signals into `health` events: repeated sends failing with error 463,
 * the account reach-out timelock, the new-chat message cap, and a connection refused with 403. An
 * event is emitted when the status changes and when a new restriction joins an existing one.
 */
export class HealthMonitor {
  private status: HealthStatus = 'healthy';
  private readonly active = new Map<Source, Restriction>();
  /** Times (Unix ms) of recent 463 failures; never longer than the threshold. */
  private failures: number[] = [];

  constructor(
    private readonly policy: HealthPolicy,
    private readonly emit: EventSink,
    private readonly now: () => number,
  ) {}

  /** Current status. */
  current(): HealthStatus {
    return this.status;
  }

  /** Starts from the status stored on the instance (no event). */
  reset(status: HealthStatus): void {
    this.status = status;
    this.active.clear();
    this.failures = [];
  }

  /** A sent message came back failed with `code`. */
  sendFailed(code: number): void {
    if (code !== 463) return;
    const now = this.now();
    this.failures = [...this.failures.filter((t) => now - t <= this.policy.failedSendWindowMs), now].slice(-this.policy.failedSendThreshold);
    if (this.failures.length >= this.policy.failedSendThreshold) {
      const minutes = Math.round(this.policy.failedSendWindowMs / 60_000);
      this.restrict('failed-sends', {
        reason: `${this.failures.length} messages failed with error 463 (account restricted) within ${minutes} minutes`,
        shouldPause: true,
        shouldRotate: false,
      });
    }
  }

  /** WhatsApp accepted a sent message. */
  sendAccepted(): void {
    this.failures = [];
    this.lift('failed-sends');
  }

  /** Baileys reported the account's reach-out timelock. */
  timelock(state: ReachoutTimelockState): void {
    if (!state.isActive) return this.lift('timelock');
    const type = state.enforcementType ?? 'DEFAULT';
    const until = state.timeEnforcementEnds ? ` until ${state.timeEnforcementEnds.toISOString()}` : '';
    this.restrict('timelock', {
      reason: `WhatsApp restricted new conversations (reach-out timelock ${type})${until}`,
      shouldPause: true,
      // Commerce-policy violations do not expire soon; a temporary timelock does.
      shouldRotate: type.startsWith('BIZ_'),
    });
  }

  /** Baileys reported the new-chat message cap. */
  messageCap(info: NewChatMessageCapInfo): void {
    if (info.capping_status !== 'CAPPED') return this.lift('message-cap');
    const quota = info.total_quota !== undefined ? ` (${info.used_quota ?? info.total_quota}/${info.total_quota})` : '';
    this.restrict('message-cap', {
      reason: `new-chat message cap reached${quota}`,
      shouldPause: true,
      shouldRotate: true,
    });
  }

  /** The server refused the connection with 403. */
  connectionForbidden(): void {
    this.restrict('forbidden', {
      reason: 'WhatsApp refused the connection (403 forbidden): the number may be banned',
      shouldPause: true,
      shouldRotate: true,
    });
  }

  /** The connection opened. */
  connectionOpened(): void {
    this.lift('forbidden');
  }

  private restrict(source: Source, restriction: Restriction): void {
    const isNew = !this.active.has(source);
    this.active.set(source, restriction);
    if (this.status === 'restricted' && !isNew) return;
    const previous = this.status;
    this.status = 'restricted';
    this.emit({ type: 'health', status: 'restricted', previous, ...restriction });
  }

  private lift(source: Source): void {
    const had = this.active.delete(source);
    // A restriction restored from storage has no known source: any positive signal lifts it.
    if (this.status !== 'restricted' || this.active.size > 0 || (!had && source === 'forbidden')) return;
    this.status = 'healthy';
    this.emit({ type: 'health', status: 'healthy', previous: 'restricted', reason: LIFTED[source], shouldPause: false, shouldRotate: false });
  }
}
