import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import type { ChannelEvent, WebhookFormat, WebhookRenderContext } from '@parley/core';

/** What {@link describeWebhookFormatConformance} renders. */
export interface WebhookFormatConformanceFixtures {
  context: WebhookRenderContext;
  /** Named events; each must render a JSON object unless its name is in `unsupported`. */
  events: Record<string, ChannelEvent>;
  /** Names of events the format does not carry: they must render exactly null. */
  unsupported: readonly string[];
  /** Strings that must never appear in a rendered body or signature header (instance key, tokens…). */
  secrets: readonly string[];
}

/**
 * The contract every webhook format plugin meets, as a node:test suite: rendering is pure and
 * deterministic, leaves its inputs untouched, answers null exactly for the kinds it does not carry,
 * produces plain JSON (nothing lost in a JSON round trip) and never leaks a secret. When the format
 * has `signatureHeaders`, they depend on the body and the secret and are stable.
 */
export function describeWebhookFormatConformance(format: WebhookFormat, fixtures: WebhookFormatConformanceFixtures): void {
  describe(`webhook format conformance: ${format.name}`, () => {
    it('has a name', () => {
      assert.match(format.name, /^[a-z][a-z0-9-]*$/);
    });

    it('declares only fixture names as unsupported', () => {
      for (const name of fixtures.unsupported) assert.ok(name in fixtures.events, `unknown unsupported fixture ${name}`);
    });

    for (const [name, event] of Object.entries(fixtures.events)) {
      const supported = !fixtures.unsupported.includes(name);
      it(`${name}: ${supported ? 'renders plain JSON without secrets' : 'renders null'}`, () => {
        const eventBefore = structuredClone(event);
        const instanceBefore = structuredClone(fixtures.context.instance);
        const first = format.render(event, fixtures.context);
        const second = format.render(event, fixtures.context);
        assert.deepEqual(event, eventBefore, 'render mutated the event');
        assert.deepEqual(fixtures.context.instance, instanceBefore, 'render mutated the instance');
        if (!supported) {
          assert.equal(first, null);
          return;
        }
        assert.ok(first !== null && typeof first === 'object' && !Array.isArray(first), 'body must be a JSON object');
        assert.deepStrictEqual(second, first, 'render is not deterministic');
        const body = JSON.stringify(first);
        assert.deepStrictEqual(JSON.parse(body), first, 'body does not survive a JSON round trip');
        for (const secret of fixtures.secrets) assert.ok(!body.includes(secret), `body of ${name} leaks a secret`);
      });
    }

    if (format.signatureHeaders) {
      const sign = format.signatureHeaders.bind(format);
      it('signs the exact body with the secret, deterministically, without exposing it', () => {
        const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
        const a = sign('{"a":1}', secret);
        assert.deepStrictEqual(sign('{"a":1}', secret), a);
        assert.notDeepStrictEqual(sign('{"a": 1}', secret), a, 'signature ignores body bytes');
        assert.notDeepStrictEqual(sign('{"a":1}', `${secret}x`), a, 'signature ignores the secret');
        for (const value of Object.values(a)) assert.ok(!value.includes(secret), 'signature header exposes the secret');
      });
    }
  });
}
