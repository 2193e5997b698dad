import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { afterQuietHours, checkPacingPolicy, PACING_OFF, ValidationError, WHATSAPP_PACING, type PacingPolicy } from '../src/index.js';

const policy = (changes: Partial<PacingPolicy>): PacingPolicy => ({ ...PACING_OFF, ...changes });

describe('pacing policy checks', () => {
  it('accepts the shipped defaults', () => {
    checkPacingPolicy(PACING_OFF);
    checkPacingPolicy(WHATSAPP_PACING);
  });

  it('refuses what cannot be met, naming the field', () => {
    const refused: [Partial<PacingPolicy>, RegExp][] = [
      [{ perMinute: 5, perHour: 4 }, /^body\.perHour \(4\) must be at least perMinute \(5\)$/],
      [{ perMinute: 61, minGapMs: 1_000 }, /^body\.perMinute \(61\) can never be reached with minGapMs 1000/],
      [{ quietHours: { start: '7:00', end: '08:00', timeZone: 'UTC' } }, /^body\.quietHours\.start must be HH:MM/],
      [{ quietHours: { start: '08:00', end: '08:00', timeZone: 'UTC' } }, /^body\.quietHours\.end must differ/],
      [{ quietHours: { start: '08:00', end: '09:00', timeZone: 'Nowhere/City' } }, /^body\.quietHours\.timeZone "Nowhere\/City" is not an IANA time zone$/],
      [{ typing: { enabled: true, msPerChar: 10, minMs: 3_000, maxMs: 2_000 } }, /^body\.typing\.minMs \(3000\) must not exceed typing\.maxMs \(2000\)$/],
    ];
    for (const [changes, message] of refused) {
      assert.throws(() => checkPacingPolicy(policy(changes)), (err: unknown) => err instanceof ValidationError && message.test(err.message), JSON.stringify(changes));
    }
    // 60 sends a minute 1 s apart fit exactly.
    checkPacingPolicy(policy({ perMinute: 60, minGapMs: 1_000 }));
  });
});

describe('afterQuietHours', () => {
  const utc = { start: '22:00', end: '06:00', timeZone: 'UTC' };

  it('leaves a time outside the window as it is', () => {
    assert.equal(afterQuietHours(Date.UTC(2030, 0, 1, 12, 30, 15), utc), Date.UTC(2030, 0, 1, 12, 30, 15));
    assert.equal(afterQuietHours(Date.UTC(2030, 0, 1, 6, 0), utc), Date.UTC(2030, 0, 1, 6, 0));
  });

  it('moves a time inside a window that crosses midnight to its end, on either side of midnight', () => {
    assert.equal(afterQuietHours(Date.UTC(2030, 0, 1, 22, 0), utc), Date.UTC(2030, 0, 2, 6, 0));
    assert.equal(afterQuietHours(Date.UTC(2030, 0, 1, 23, 59, 30), utc), Date.UTC(2030, 0, 2, 6, 0));
    assert.equal(afterQuietHours(Date.UTC(2030, 0, 2, 3, 17, 45), utc), Date.UTC(2030, 0, 2, 6, 0));
  });

  it('reads the window in its time zone, across a daylight-saving change', () => {
    // Berlin 01:00–03:00 local; on 2030-03-31 clocks jump from 02:00 to 03:00 (UTC+1 → UTC+2).
    const berlin = { start: '01:00', end: '03:00', timeZone: 'Europe/Berlin' };
    // 00:30Z is 01:30 CET: quiet until 03:00 CEST, which is 01:00Z.
    assert.equal(afterQuietHours(Date.UTC(2030, 2, 31, 0, 30), berlin), Date.UTC(2030, 2, 31, 1, 0));
    // A day before: 00:30Z is 01:30 CET, quiet until 03:00 CET = 02:00Z.
    assert.equal(afterQuietHours(Date.UTC(2030, 2, 30, 0, 30), berlin), Date.UTC(2030, 2, 30, 2, 0));
  });
});
