import { ValidationError } from '@parley/core';
import { validate as isCronExpression } from 'node-cron';

/** Retry behaviour of failed deliveries. */
export interface RetryOptions {
  /**
   * Delay before each retry, in ms: a delivery is attempted once at once, then once after each delay,
   * then dead-lettered. The default spans 46 h 47 min (at least 37 h with the default jitter).
   */
  schedule: number[];
  /**
   * Fraction of each delay that is random, in [0, 1]: a delay `d` becomes uniform in
   * `[d × (1 − jitter), d]`. 1 is full jitter; the default 0.2 spreads a burst of failures while keeping
   * the schedule's span.
   */
  jitter: number;
  /** Upper bound of a receiver's `Retry-After`, in ms. */
  maxRetryAfterMs: number;
}

/** Periodic jobs (node-cron expressions, with an optional seconds field). */
export interface HousekeepingOptions {
  /** Wakes the worker: picks up deliveries whose lease expired (a crashed worker) and clock jumps. */
  sweepCron: string;
  /** Deletes dead letters older than {@link deadLetterRetentionMs}. */
  purgeCron: string;
  /** How long dead letters are kept for inspection and redelivery, in ms. */
  deadLetterRetentionMs: number;
}

/** Settings of the webhook engine (server config `webhooks`). */
export interface WebhookOptions {
  /** The meta format's `object` (spec 6.2 `<SERVICE_TAG>`). */
  serviceTag: string;
  /** Whole-request time-out of one attempt (connect, send, answer, body), in ms. */
  timeoutMs: number;
  /** Lanes (instance and URL or sink) in flight at once, over all instances. At most one batch per lane. */
  concurrency: number;
  /**
   * Deliveries of one lane claimed and attempted together, in order: a sink publishes them pipelined
   * and awaits their confirms in order; webhooks POST them one after the other. Default 64.
   */
  batchSize: number;
  /**
   * Lease of a claimed delivery, in ms. Longer than {@link timeoutMs} plus storage round trips, so a
   * delivery is never sent by two workers at once; after a crash it is retried once the lease expires.
   * Default: twice the time-out plus 30 s.
   */
  leaseMs: number;
  /** Bound of `stop()`: in-flight requests still running after it are aborted (and retried after their lease). */
  stopTimeoutMs: number;
  userAgent: string;
  retry: RetryOptions;
  housekeeping: HousekeepingOptions;
}

/** What configuration may give: every member optional, nested groups partial. */
export type WebhookOptionsInput = Partial<Omit<WebhookOptions, 'retry' | 'housekeeping'>> & {
  retry?: Partial<RetryOptions>;
  housekeeping?: Partial<HousekeepingOptions>;
};

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Defaults of every option except `leaseMs`, which follows `timeoutMs`. */
export const defaultWebhookOptions: Readonly<Omit<WebhookOptions, 'leaseMs'>> = Object.freeze({
  serviceTag: 'parley',
  timeoutMs: 15 * SECOND,
  concurrency: 16,
  batchSize: 64,
  stopTimeoutMs: 10 * SECOND,
  userAgent: 'Parley-Webhooks/0.1',
  retry: Object.freeze({
    schedule: [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR],
    jitter: 0.2,
    maxRetryAfterMs: HOUR,
  }),
  housekeeping: Object.freeze({ sweepCron: '* * * * *', purgeCron: '17 * * * *', deadLetterRetentionMs: 7 * 24 * HOUR }),
}) as Readonly<Omit<WebhookOptions, 'leaseMs'>>;

const ms = (minimum: number) => ({ type: 'integer', minimum });

/** JSON Schema of {@link WebhookOptionsInput}, for the server's config validation (ajv strict). */
export const webhookOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    serviceTag: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$', default: defaultWebhookOptions.serviceTag },
    timeoutMs: { ...ms(1), maximum: 10 * MINUTE, default: defaultWebhookOptions.timeoutMs },
    concurrency: { type: 'integer', minimum: 1, maximum: 1_000, default: defaultWebhookOptions.concurrency },
    batchSize: { type: 'integer', minimum: 1, maximum: 1_000, default: defaultWebhookOptions.batchSize },
    leaseMs: { ...ms(1), description: 'default: 2 × timeoutMs + 30000; must exceed timeoutMs by at least 1000' },
    stopTimeoutMs: { ...ms(0), default: defaultWebhookOptions.stopTimeoutMs },
    userAgent: { type: 'string', minLength: 1, maxLength: 200, default: defaultWebhookOptions.userAgent },
    retry: {
      type: 'object',
      additionalProperties: false,
      properties: {
        schedule: { type: 'array', items: ms(0), maxItems: 100, default: defaultWebhookOptions.retry.schedule },
        jitter: { type: 'number', minimum: 0, maximum: 1, default: defaultWebhookOptions.retry.jitter },
        maxRetryAfterMs: { ...ms(0), default: defaultWebhookOptions.retry.maxRetryAfterMs },
      },
    },
    housekeeping: {
      type: 'object',
      additionalProperties: false,
      properties: {
        sweepCron: { type: 'string', minLength: 1, default: defaultWebhookOptions.housekeeping.sweepCron },
        purgeCron: { type: 'string', minLength: 1, default: defaultWebhookOptions.housekeeping.purgeCron },
        deadLetterRetentionMs: { ...ms(0), default: defaultWebhookOptions.housekeeping.deadLetterRetentionMs },
      },
    },
  },
} as const;

/**
 * Fills defaults and checks what the schema cannot: cron syntax and the lease/time-out relation.
 * Throws ValidationError naming the option.
 */
export function resolveWebhookOptions(input: WebhookOptionsInput = {}): WebhookOptions {
  const { retry, housekeeping, ...flat } = input;
  const timeoutMs = flat.timeoutMs ?? defaultWebhookOptions.timeoutMs;
  const options: WebhookOptions = {
    ...defaultWebhookOptions,
    leaseMs: 2 * timeoutMs + 30 * SECOND,
    ...flat,
    retry: { ...defaultWebhookOptions.retry, schedule: [...defaultWebhookOptions.retry.schedule], ...retry },
    housekeeping: { ...defaultWebhookOptions.housekeeping, ...housekeeping },
  };
  if (options.leaseMs < options.timeoutMs + SECOND) {
    throw new ValidationError('webhooks.leaseMs must exceed webhooks.timeoutMs by at least 1000 ms');
  }
  for (const field of ['sweepCron', 'purgeCron'] as const) {
    if (!isCronExpression(options.housekeeping[field])) throw new ValidationError(`webhooks.housekeeping.${field} is not a valid cron expression`);
  }
  return options;
}
