import type { Clock, Delivery, Storage, WebhookFormat } from '@parley/core';
import type { DeliveryObserver } from './delivery-observer.js';
import { attemptInTurn, type AttemptResult, type DeliveryTransport } from './delivery-transport.js';
import type { HttpSender } from './http-sender.js';
import { parseRetryAfter } from './retry-policy.js';
import { standardWebhookHeaders } from './signing.js';

/**
 * How long an instance's webhook secret is reused without reading the instance again (ms). Secrets
 * never change; the bound only lets a deleted instance's last claimed deliveries find out soon.
 */
const SECRET_CACHE_MS = 1_000;
/** Above this many cached secrets, expired ones are dropped on the next insert. */
const SECRET_CACHE_SWEEP_SIZE = 1_024;

/** What the webhook transport needs. */
export interface WebhookTransportDeps {
  storage: Storage;
  formats: ReadonlyMap<string, WebhookFormat>;
  sender: HttpSender;
  clock: Clock;
  timeoutMs: number;
  /** Told of each attempt's outcome and duration (metrics). */
  observer?: DeliveryObserver;
}

/** Webhook attempts: a signed HTTP POST of the stored body, one at a time in lane order; 2xx delivers it. */
export class WebhookTransport implements DeliveryTransport {
  readonly kind = 'webhook';
  /** Webhook secret by instance id (null: the instance no longer exists), until `expires`. */
  private readonly secrets = new Map<string, { secret: string | null; expires: number }>();

  constructor(private readonly deps: WebhookTransportDeps) {}

  attempt(deliveries: readonly Delivery[], signal: AbortSignal, mayStart: () => boolean): Promise<AttemptResult[]> {
    return attemptInTurn(deliveries, signal, mayStart, (delivery) => {
      const secret = this.cachedSecret(delivery.instance);
      // The secret is nearly always cached: read from storage only when it is not, without an extra turn otherwise.
      return secret === undefined ? this.secretOf(delivery.instance).then((read) => this.post(delivery, read, signal)) : this.post(delivery, secret, signal);
    });
  }

  private async post(delivery: Delivery, secret: string | null, signal: AbortSignal): Promise<AttemptResult> {
    const { formats, sender, clock, observer, timeoutMs } = this.deps;
    if (secret === null) return { delivered: false, error: 'instance no longer exists', final: true };
    // One object per attempt, filled in place (the sender adds its user agent).
    const headers: Record<string, string> = secret ? standardWebhookHeaders(delivery.id, Math.floor(clock.now() / 1_000), delivery.body, secret) : {};
    headers['content-type'] = 'application/json';
    const extra = secret ? formats.get(delivery.format)?.signatureHeaders?.(delivery.body, secret) : undefined;
    if (extra) Object.assign(headers, extra);
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1e3;
    let answer;
    try {
      answer = await sender.post(delivery.url, headers, delivery.body, timeoutMs, signal);
    } catch (error) {
      if (!signal.aborted) observer?.attempted(delivery.format, 'failed', seconds());
      throw error;
    }
    const { status, responseTimeMs } = answer;
    if (status >= 200 && status < 300) {
      observer?.attempted(delivery.format, 'delivered', seconds());
      return { delivered: true, status, responseTimeMs };
    }
    observer?.attempted(delivery.format, 'failed', seconds());
    const retryAfterMs = parseRetryAfter(answer.retryAfter, clock.now());
    return { delivered: false, error: `HTTP ${status}`, status, responseTimeMs, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }

  /** The instance's cached webhook secret, as {@link secretOf} answers it, or undefined when the cache has none in date. */
  private cachedSecret(instanceId: string): string | null | undefined {
    const cached = this.secrets.get(instanceId);
    return cached && cached.expires > this.deps.clock.now() ? cached.secret : undefined;
  }

  /** The instance's webhook secret ('' when it has none), or null when the instance no longer exists: read from storage, then cached. */
  private async secretOf(instanceId: string): Promise<string | null> {
    const now = this.deps.clock.now();
    const instance = await this.deps.storage.instances.get(instanceId);
    if (this.secrets.size >= SECRET_CACHE_SWEEP_SIZE) {
      for (const [id, entry] of this.secrets) if (entry.expires <= now) this.secrets.delete(id);
    }
    const secret = instance ? instance.webhookSecret : null;
    this.secrets.set(instanceId, { secret, expires: now + SECRET_CACHE_MS });
    return secret;
  }
}
