/**
 * Writes a warning that anyone can make the server repeat (a request refused before it could be
 * authenticated) at most once per period: the first at once, each later one folded into the next line,
 * which says how many occurrences it stands for (`count`). A flood costs the log one line a period, and
 * nothing is left uncounted while the process runs: occurrences folded after the last line are written
 * when the period ends.
 */
export class LogThrottle {
  private lastAt = -Infinity;
  private folded = 0;
  private pending?: () => void;
  private timer?: NodeJS.Timeout;

  constructor(private readonly periodMs: number) {}

  /** One occurrence; `write(count)` writes the line (with this occurrence's details) when one is due. */
  note(write: (count: number) => void): void {
    this.folded++;
    this.pending = () => write(this.folded);
    const wait = this.lastAt + this.periodMs - performance.now();
    if (wait <= 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), wait).unref();
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.folded === 0) return;
    this.pending?.();
    this.pending = undefined;
    this.folded = 0;
    this.lastAt = performance.now();
  }
}
