import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { channelDirectory, ValidationError, type ChannelEvent } from '@parley/core';
import { shippedChannelDirectory, webhookEventFixtures } from '@parley/testkit';
import {
  counterpartNumbers, defaultWebhookOptions, isAllowedNumber, deliveryId, formatNames, newWebhookSecret, parseAllowNumber, parseRetryAfter, resolveWebhookOptions,
  RetryPolicy, routeUrl, standardWebhookHeaders, webhookOptionsSchema,
} from '../src/index.js';

const fixtures = webhookEventFixtures();
const HOUR = 3_600_000;

describe('standard webhooks signature', () => {
  it('matches the Standard Webhooks reference vector', () => {
    assert.deepEqual(standardWebhookHeaders('msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'), {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('new secrets are whsec_ plus standard base64 of 24 bytes', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 24);
    assert.notEqual(newWebhookSecret(), secret);
  });

  it('delivery ids are stable per event, format and URL', () => {
    const id = deliveryId('01JD7R00000000000000000001', 'native', 'https://a.example/hook');
    assert.match(id, /^msg_01JD7R00000000000000000001_[A-Za-z0-9_-]{16}$/);
    assert.equal(deliveryId('01JD7R00000000000000000001', 'native', 'https://a.example/hook'), id);
    assert.notEqual(deliveryId('01JD7R00000000000000000001', 'meta', 'https://a.example/hook'), id);
    assert.notEqual(deliveryId('01JD7R00000000000000000001', 'native', 'https://b.example/hook'), id);
  });

  it('signatures and delivery ids do not change when their memos start over', () => {
    // The id as every earlier version derived it: a delivery re-enqueued after an upgrade is still the same delivery.
    const id = 'msg_01JD7R00000000000000000001_ZGDdhv9cFxduv7JK';
    const vector = () => standardWebhookHeaders('msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')['webhook-signature'];
    assert.equal(deliveryId('01JD7R00000000000000000001', 'native', 'https://a.example/hook'), id);
    assert.equal(vector(), 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    const seen = new Set<string>();
    // More URLs and secrets than either memo keeps: each starts over at least once.
    for (let n = 0; n < 5_000; n++) {
      seen.add(deliveryId('01JD7R00000000000000000001', 'native', `https://a.example/hook/${n}`));
      seen.add(standardWebhookHeaders('msg_x', 1, '{}', newWebhookSecret())['webhook-signature']!);
    }
    assert.equal(seen.size, 10_000);
    assert.equal(deliveryId('01JD7R00000000000000000001', 'native', 'https://a.example/hook'), id);
    assert.equal(vector(), 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});

describe('retry policy', () => {
  it('follows the schedule, then dead-letters', () => {
    const policy = new RetryPolicy({ schedule: [5_000, 30_000], jitter: 0, maxRetryAfterMs: HOUR });
    assert.equal(policy.maxAttempts, 3);
    assert.equal(policy.nextAttemptAt(1, 1_000), 6_000);
    assert.equal(policy.nextAttemptAt(2, 1_000), 31_000);
    assert.equal(policy.nextAttemptAt(3, 1_000), null);
  });

  it('jitter takes up to its fraction off each delay', () => {
    const low = new RetryPolicy({ schedule: [10_000], jitter: 0.2, maxRetryAfterMs: HOUR }, () => 0.999_999);
    const high = new RetryPolicy({ schedule: [10_000], jitter: 0.2, maxRetryAfterMs: HOUR }, () => 0);
    const full = new RetryPolicy({ schedule: [10_000], jitter: 1, maxRetryAfterMs: HOUR }, () => 0.5);
    assert.equal(low.nextAttemptAt(1, 0), 8_000);
    assert.equal(high.nextAttemptAt(1, 0), 10_000);
    assert.equal(full.nextAttemptAt(1, 0), 5_000);
  });

  it('Retry-After postpones within its cap and never advances the schedule', () => {
    const policy = new RetryPolicy({ schedule: [5_000], jitter: 0, maxRetryAfterMs: 60_000 });
    assert.equal(policy.nextAttemptAt(1, 0, 20_000), 20_000);
    assert.equal(policy.nextAttemptAt(1, 0, 1_000), 5_000);
    assert.equal(policy.nextAttemptAt(1, 0, 10 * HOUR), 60_000);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('120', now), 120_000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now), 30_000);
    assert.equal(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });

  it('the default schedule spans more than 24 hours even with maximal jitter', () => {
    const { schedule, jitter } = defaultWebhookOptions.retry;
    const shortest = schedule.reduce((sum, delay) => sum + delay * (1 - jitter), 0);
    assert.ok(shortest >= 24 * HOUR, `shortest span ${shortest / HOUR} h`);
    assert.equal(schedule.length + 1, 11);
  });
});

describe('options', () => {
  it('the schema compiles in ajv strict mode and accepts the defaults', () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    const validate = ajv.compile(webhookOptionsSchema);
    const { leaseMs, ...rest } = resolveWebhookOptions();
    assert.ok(validate({ ...rest, leaseMs }), ajv.errorsText(validate.errors));
    assert.ok(validate({}));
    assert.equal(validate({ timeoutMs: 'fast' }), false);
    assert.equal(validate({ retry: { jitter: 2 } }), false);
    assert.equal(validate({ unknown: 1 }), false);
  });

  it('fills defaults and derives the lease from the time-out', () => {
    const options = resolveWebhookOptions({ timeoutMs: 10_000, retry: { jitter: 0 } });
    assert.equal(options.timeoutMs, 10_000);
    assert.equal(options.leaseMs, 50_000);
    assert.equal(options.concurrency, 16);
    assert.equal(options.serviceTag, 'parley');
    assert.deepEqual(options.retry, { ...defaultWebhookOptions.retry, jitter: 0 });
    assert.deepEqual(options.housekeeping, defaultWebhookOptions.housekeeping);
    assert.equal(resolveWebhookOptions().leaseMs, 60_000);
  });

  it('refuses a lease not longer than the time-out and bad cron expressions, naming the option', () => {
    assert.throws(() => resolveWebhookOptions({ timeoutMs: 5_000, leaseMs: 5_500 }), { name: 'ValidationError', message: /webhooks\.leaseMs/ });
    assert.throws(() => resolveWebhookOptions({ housekeeping: { purgeCron: 'every hour' } }), { message: /webhooks\.housekeeping\.purgeCron/ });
  });
});

describe('routing rules', () => {
  const settings = {
    ...fixtures.instance.webhook, webhookMessage: 'https://r.example/message', webhookGroup: 'https://r.example/group',
    webhookConnection: 'https://r.example/connection', webhookQrCode: '', webhookMessageFromMe: 'https://r.example/me', webhookHistory: '',
  };

  it('picks each type\'s URL, falling back to webhookMessage', () => {
    const route = (name: keyof typeof fixtures.events) => routeUrl(fixtures.events[name], settings);
    assert.equal(route('message-text'), 'https://r.example/message');
    assert.equal(route('message-from-me'), 'https://r.example/me');
    assert.equal(route('group-participants'), 'https://r.example/group');
    assert.equal(route('group-update'), 'https://r.example/group');
    assert.equal(route('connection-close'), 'https://r.example/connection');
    assert.equal(route('qrcode'), 'https://r.example/message');
    assert.equal(route('history'), 'https://r.example/message');
    for (const name of ['status-read', 'presence', 'call', 'health', 'chats-upsert'] as const) assert.equal(route(name), 'https://r.example/message');
    assert.equal(routeUrl(fixtures.events['qrcode'], { ...settings, webhookMessage: '' }), '');
  });

  it('both means native and meta', () => {
    assert.deepEqual(formatNames('both'), ['native', 'meta']);
    assert.deepEqual(formatNames('meta'), ['meta']);
  });

  it('parses allowNumber', () => {
    assert.equal(parseAllowNumber('all'), 'all');
    assert.deepEqual(parseAllowNumber(' 5511988887777 ,+120363025246125486'), new Set(['5511988887777', '120363025246125486']));
    for (const bad of ['', 'ALL', '5511,', 'abc', '55 11 98888', '5511988887777;5511988887778', '12345']) {
      assert.throws(() => parseAllowNumber(bad), (error: unknown) => error instanceof ValidationError && /allowNumber/.test(error.message), bad);
    }
  });

  it('takes numbers only from channels whose drivers declare phone-number addressing', () => {
    const sms = channelDirectory([{ name: 'sms-gw', channel: 'sms-gw', role: 'main', addressing: { description: 'E.164 digits.', phoneNumbers: true } }]);
    const smsEvent = { ...fixtures.events['message-text'], provider: 'sms-gw' } as ChannelEvent;
    assert.deepEqual(counterpartNumbers(smsEvent, sms), ['5511988887777', '5511988887777']);
    // The same WhatsApp event is instance-level where no driver declares whatsapp with phone numbers.
    assert.equal(counterpartNumbers(fixtures.events['message-text'], sms), null);
    assert.equal(isAllowedNumber(smsEvent, parseAllowNumber('5511900000000'), sms), false);
    assert.equal(isAllowedNumber(smsEvent, parseAllowNumber('5511988887777'), sms), true);
  });

  it('names the numbers an event is about', () => {
    const numbers = (event: ChannelEvent) => counterpartNumbers(event, shippedChannelDirectory());
    assert.deepEqual(numbers(fixtures.events['message-text']), ['5511988887777', '5511988887777']);
    assert.deepEqual(numbers(fixtures.events['message-group']), ['120363025246125486', '5511966665555']);
    assert.deepEqual(numbers(fixtures.events['status-group']), ['120363025246125486', '120363025246125486', '5511966665555']);
    assert.deepEqual(numbers(fixtures.events['group-participants']), ['120363025246125486', '5511944443333']);
    assert.deepEqual(numbers(fixtures.events['call']), ['5511988887777', '5511988887777']);
    for (const name of ['connection-open', 'qrcode', 'health', 'history', 'message-text-instagram', 'status-read-messenger'] as const) {
      assert.equal(numbers(fixtures.events[name]), null, name);
    }
  });
});
