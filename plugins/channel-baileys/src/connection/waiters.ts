/** How a wait for the login handshake ended: a QR code, the open connection, a close, or nothing in time. */
export type Outcome = 'qr' | 'open' | 'closed' | 'timeout';

interface Waiter {
  resolve(outcome: Outcome): void;
  reject(err: Error): void;
}

/** Callers waiting for the next QR code or open connection of an instance. */
export class Waiters {
  private readonly waiting = new Set<Waiter>();

  /** Resolves with the next outcome, or `timeout` after `timeoutMs`. */
  wait(timeoutMs: number): Promise<Outcome> {
    return new Promise<Outcome>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        this.waiting.delete(waiter);
      };
      const waiter: Waiter = {
        resolve: (outcome) => { settle(); resolve(outcome); },
        reject: (err) => { settle(); reject(err); },
      };
      const timer = setTimeout(() => waiter.resolve('timeout'), timeoutMs);
      this.waiting.add(waiter);
    });
  }

  notify(outcome: Exclude<Outcome, 'timeout'>): void {
    for (const waiter of [...this.waiting]) waiter.resolve(outcome);
  }

  rejectAll(err: Error): void {
    for (const waiter of [...this.waiting]) waiter.reject(err);
  }
}
