/** The send load shared by the benchmarks that drive `POST /{key}/message/text` over HTTP. */
import autocannon, { type Result } from 'autocannon';

/** Longest wait for a queue to drain after a round. */
export const DRAIN_LIMIT_MS = 300_000;

/**
 * autocannon against `POST {base}/{key}/message/text`, each request to the next number of `to` in
 * turn (the queue keeps order per recipient, so sends to one recipient leave one at a time). Runs
 * `seconds`, or `amount` requests when given; `extra` is merged into every body; `timeout`: seconds
 * before a request counts as an error (autocannon's default 10).
 */
export function sendLoad(
  base: string, key: string, to: string[], options: { connections: number; seconds?: number; amount?: number; extra?: Record<string, unknown>; timeout?: number },
): Promise<Result> {
  const bodies = to.map((number) => JSON.stringify({ to: number, text: 'hello from the benchmark', ...options.extra }));
  let next = 0;
  return autocannon({
    url: `${base}/${key}/message/text`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (request: Record<string, unknown>) => ({ ...request, body: bodies[next++ % bodies.length] }) }],
    connections: options.connections,
    ...(options.timeout ? { timeout: options.timeout } : {}),
    ...(options.amount ? { amount: options.amount } : { duration: options.seconds ?? 10 }),
  });
}

/**
 * Waits until the instance's outbound queue is empty (`GET {base}/{key}/queue`, polled every 25 ms)
 * and answers how long that took; throws when sends are still queued after {@link DRAIN_LIMIT_MS}.
 */
export async function queueDrained(base: string, key: string): Promise<number> {
  const started = performance.now();
  let total = 0;
  while (performance.now() - started < DRAIN_LIMIT_MS) {
    total = ((await (await fetch(`${base}/${key}/queue?limit=1`)).json()) as { total: number }).total;
    if (total === 0) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${total} sends still queued ${DRAIN_LIMIT_MS} ms after the round`);
}
