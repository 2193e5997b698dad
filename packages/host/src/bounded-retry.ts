/**
 * Runs `run`, and again after each of `delaysMs` while it fails. Answers undefined once it succeeded,
 * or the last error once every retry failed; never throws.
 */
export async function withBoundedRetry(run: () => Promise<void>, delaysMs: readonly number[]): Promise<{ err: unknown } | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      await run();
      return undefined;
    } catch (err) {
      const delay = delaysMs[attempt];
      if (delay === undefined) return { err };
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
