/**
 * Where all domain time comes from: record, event, delivery and retry timestamps, leases,
 * retention cut-offs. The host registers one under `Tokens.Clock` and hands it to every
 * plugin's `register` (`context.clock`); tests pass a fake one (`FakeClock` of `@parley/testkit`)
 * to control time. Pure duration measurements (latency, time-outs of one request) use
 * `performance.now()` instead, which no clock should move.
 */
export interface Clock {
  /** Unix milliseconds. */
  now(): number;
}

/** The real clock: the default wherever no clock is given. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });
