import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { InstanceClient } from '@parley/client';
import { AnswerRecorder } from '../support/answer-recorder.js';
import { apiError, apiErrorAnswer, type ErrorAnswer } from '../support/api-error.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** The body of `mobilePrepare` for a number split as the spec asks: country code, national number, mobile network code. */
const prepareBody = (cc: string, national: string) => ({
  body: { phoneNumberCountryCode: cc, phoneNumberNationalNumber: national, phoneNumberMobileNetworkCode: '1' },
});

/** The code the simulated phone received, read through the sandbox's route (`123-456`). */
async function codeOnPhone(api: InstanceClient): Promise<{ code: string; method: string; expiresAt: string; attemptsLeft: number }> {
  return (await api.call('sandbox_get_key_mobile_code')).data;
}

/** A wrong 6-digit code for `code` (`123-456` → `234-567`). */
const wrongFor = (code: string) => code.replace(/\d/g, (d) => String((Number(d) + 1) % 10));

describe('mobile registration on the sandbox (spec 4.1 mobile/*)', () => {
  describe('the three steps, with a server restart between each (SQLite)', () => {
    let dataDir: string;
    let t: TestServer | undefined;
    const NUMBER = '5511976000001';
    let instance: { id: string; key: string };
    const restart = async () => {
      await t?.stop();
      t = await startTestServer({ storage: 'sqlite', dataDir });
    };
    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'parley-mobile-'));
      t = await startTestServer({ storage: 'sqlite', dataDir });
      instance = await t.createInstance({ name: 'mobile', number: NUMBER });
    });
    after(async () => {
      await t?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('prepare, request a code, verify it: the instance connects as that number', async () => {
      assert.deepEqual(await t!.client(instance.key).call('mobilePrepare', prepareBody('+55', '11976000001')),
        { status: 200, message: 'Mobile registration prepared' });
      await restart();
      assert.deepEqual(await t!.client(instance.key).call('mobileRequestCode', { body: { method: 'voice' } }),
        { status: 200, data: { method: 'voice', length: 6 } });
      await restart();
      const api = t!.client(instance.key);
      const received = await codeOnPhone(api);
      assert.match(received.code, /^\d{3}-\d{3}$/);
      assert.equal(received.method, 'voice');
      assert.equal(received.attemptsLeft, 3);
      const ttl = Date.parse(received.expiresAt) - Date.now();
      assert.ok(ttl > 590_000 && ttl <= 600_000, `the code expires in 10 minutes (${ttl} ms)`);
      await restart();

      const phone = t!.client(instance.key);
      await assert.rejects(phone.call('mobileVerify', { body: { code: wrongFor(received.code) } }),
        apiErrorAnswer({ status: 400, error: { code: 'wrong_code', message: `body.code is not the code sent to +${NUMBER}: 2 attempt(s) left`, details: { attemptsLeft: 2 } } }));
      assert.equal((await phone.call('getInstance')).instance.phoneConnected, false);
      assert.equal((await codeOnPhone(phone)).attemptsLeft, 2);
      // Without the hyphen too (the route takes both forms).
      assert.deepEqual(await phone.call('mobileVerify', { body: { code: received.code.replace('-', '') } }), { status: 200, data: { phoneConnected: true } });
      const view = (await phone.call('getInstance')).instance;
      assert.equal(view.phoneConnected, true);
      assert.equal(view.user?.id, `${NUMBER}@s.whatsapp.net`);
      await t!.settle();
      const open = t!.events.find((e) => e.instance === instance.id && e.type === 'connection' && e.status === 'open');
      assert.ok(open, 'a connection open event');
      // The code is used: nothing waits on the phone any more.
      await assert.rejects(codeOnPhone(phone), apiError(404, 'not_found', 'mobile registration code not found'));
    });

    it('the registered session survives a restart, and a connected instance cannot register again', async () => {
      await restart();
      const api = t!.client(instance.key);
      await t!.waitFor(async () => (await api.call('getInstance')).instance.phoneConnected, 5000, 'the restored instance to connect');
      const connected: ErrorAnswer = { status: 409, error: { code: 'already_connected', message: 'the instance is already connected' } };
      await assert.rejects(api.call('mobilePrepare', prepareBody('55', '11976000001')), apiErrorAnswer(connected));
      await assert.rejects(api.call('mobileRequestCode', { body: { method: 'sms' } }), apiErrorAnswer(connected));
      await assert.rejects(api.call('mobileVerify', { body: { code: '123-456' } }), apiErrorAnswer(connected));
    });
  });

  describe('wrong order, wrong input, rate and attempts', () => {
    let t: TestServer;
    let recorder: AnswerRecorder;
    before(async () => {
      t = await startTestServer({ sandbox: { mobileCodeTtlMs: 400, mobileCodeIntervalMs: 60_000 } });
      recorder = new AnswerRecorder(t);
    });
    after(async () => {
      await t.stop();
    });

    it('steps out of order answer 409 and change nothing', async () => {
      const created = await t.createInstance({ number: '5511976000002' });
      const api = recorder.instance(created.key);
      const notPrepared: ErrorAnswer = { status: 409, error: { code: 'not_prepared', message: 'no registration is prepared: call POST /{key}/instance/mobile/prepare first' } };
      await assert.rejects(api.call('mobileRequestCode', { body: { method: 'sms' } }), apiErrorAnswer(notPrepared));
      await assert.rejects(api.call('mobileVerify', { body: { code: '123-456' } }), apiErrorAnswer(notPrepared));
      await assert.rejects(codeOnPhone(api), apiError(404, 'not_found'));

      await api.call('mobilePrepare', prepareBody('55', '11976000002'));
      await assert.rejects(api.call('mobileVerify', { body: { code: '123-456' } }), apiErrorAnswer({
        status: 409, error: { code: 'no_code', message: 'no code is waiting: request one with POST /{key}/instance/mobile/request-code' },
      }));
      assert.equal((await api.call('getInstance')).instance.phoneConnected, false);
    });

    it('a number that is not the instance\'s is refused (400) and prepares nothing', async () => {
      const created = await t.createInstance({ number: '5511976000003' });
      const api = recorder.instance(created.key);
      await assert.rejects(api.call('mobilePrepare', prepareBody('55', '11976000099')), apiError(400, 'validation_failed',
        'body.phoneNumberNationalNumber: +55 11976000099 is not this sandbox instance\'s number (5511976000003)'));
      await assert.rejects(api.call('mobileRequestCode', { body: { method: 'sms' } }), apiError(409, 'not_prepared'));
      // Malformed bodies never reach the phone (the route's schema): sent raw, as the typed client refuses them.
      for (const [path, body, message] of [
        ['mobile/prepare', { phoneNumberCountryCode: '55', phoneNumberNationalNumber: 'abc', phoneNumberMobileNetworkCode: '1' }, 'body.phoneNumberNationalNumber must match pattern "^\\d{4,14}$"'],
        ['mobile/request-code', { method: 'email' }, 'body.method must be one of "sms", "voice"'],
        ['mobile/verify', { code: '12345' }, 'body.code must match pattern "^\\d{3}-?\\d{3}$"'],
      ] as const) {
        const res = await t.request('POST', `/${created.key}/instance/${path}`, body);
        assert.equal(res.status, 400, path);
        assert.equal(res.body.error.message, message);
      }
      await assert.rejects(api.call('mobileRequestCode', { body: { method: 'sms' } }), apiError(409, 'not_prepared'));
    });

    it('a second code request within the interval answers 429 with the wait, and keeps the first code', async () => {
      const created = await t.createInstance({ number: '5511976000004' });
      const api = recorder.instance(created.key);
      await api.call('mobilePrepare', prepareBody('55', '11976000004'));
      await api.call('mobileRequestCode', { body: { method: 'sms' } });
      const first = await codeOnPhone(api);
      assert.match(first.code, /^\d{3}-\d{3}$/);
      await assert.rejects(api.call('mobileRequestCode', { body: { method: 'sms' } }), (err: unknown) => {
        apiError(429, 'too_recent', /^a code was requested less than 60 s ago: request another in (59|60) s$/)(err);
        assert.ok([59, 60].includes((err as { details: { retryAfterSeconds: number } }).details.retryAfterSeconds));
        return true;
      });
      assert.equal(recorder.last.status, 429);
      assert.deepEqual(await codeOnPhone(api), first);
      // Preparing again voids the code but does not reset the wait.
      await api.call('mobilePrepare', prepareBody('55', '11976000004'));
      await assert.rejects(codeOnPhone(api), apiError(404, 'not_found'));
      await assert.rejects(api.call('mobileRequestCode', { body: { method: 'voice' } }), apiError(429, 'too_recent'));
    });

    it('three wrong codes void the code; the right one then no longer connects', async () => {
      const created = await t.createInstance({ number: '5511976000005' });
      const api = recorder.instance(created.key);
      await api.call('mobilePrepare', prepareBody('55', '11976000005'));
      await api.call('mobileRequestCode', { body: { method: 'sms' } });
      const { code } = await codeOnPhone(api);
      for (const left of [2, 1, 0]) {
        await assert.rejects(api.call('mobileVerify', { body: { code: wrongFor(code) } }), (err: unknown) => {
          apiError(400, 'wrong_code', left ? `body.code is not the code sent to +5511976000005: ${left} attempt(s) left`
            : 'body.code is not the code sent to +5511976000005: no attempts left, request a new code')(err);
          assert.deepEqual((err as { details: unknown }).details, { attemptsLeft: left });
          return true;
        });
      }
      await assert.rejects(api.call('mobileVerify', { body: { code } }), apiError(409, 'no_code'));
      await assert.rejects(codeOnPhone(api), apiError(404, 'not_found'));
      assert.equal((await api.call('getInstance')).instance.phoneConnected, false);
    });

    it('an expired code answers 409 code_expired and connects nothing', async () => {
      const created = await t.createInstance({ number: '5511976000006' });
      const api = recorder.instance(created.key);
      await api.call('mobilePrepare', prepareBody('55', '11976000006'));
      await api.call('mobileRequestCode', { body: { method: 'sms' } });
      const { code } = await codeOnPhone(api);
      await new Promise((r) => setTimeout(r, 500));
      await assert.rejects(codeOnPhone(api), apiError(404, 'not_found'));
      await assert.rejects(api.call('mobileVerify', { body: { code } }), apiErrorAnswer({
        status: 409, error: { code: 'code_expired', message: 'the code expired: request a new one with POST /{key}/instance/mobile/request-code' },
      }));
      await assert.rejects(api.call('mobileVerify', { body: { code } }), apiError(409, 'no_code'));
      assert.equal((await api.call('getInstance')).instance.phoneConnected, false);
    });
  });

  describe('on Baileys', () => {
    let t: TestServer;
    let recorder: AnswerRecorder;
    before(async () => {
      t = await startTestServer({
        plugins: [{ package: '@parley/storage-memory' }, { package: '@parley/channel-baileys' }, { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } }],
      });
      recorder = new AnswerRecorder(t);
    });
    after(async () => {
      await t.stop();
    });

    it('each step answers 422 capability_not_supported with the reason', async () => {
      const created = await t.createInstance({ channel: 'whatsapp', name: 'baileys' });
      const api = recorder.instance(created.key);
      const unsupported: ErrorAnswer = {
        status: 422,
        error: {
          code: 'capability_not_supported',
          message: 'whatsapp does not support mobile: Baileys 7 removed the mobile registration API; connect with a QR code or a pairing code (POST /{key}/instance/pairing-code)',
        },
      };
      const steps: [string, () => Promise<unknown>][] = [
        ['mobilePrepare', () => api.call('mobilePrepare', prepareBody('+55', '11976000007'))],
        ['mobileRequestCode', () => api.call('mobileRequestCode', { body: { method: 'sms' } })],
        ['mobileVerify', () => api.call('mobileVerify', { body: { code: '123-456' } })],
      ];
      for (const [step, call] of steps) {
        await assert.rejects(call(), apiErrorAnswer(unsupported), step);
        assert.equal(recorder.last.status, 422, step);
        assert.equal(recorder.last.raw.toString('utf8'), JSON.stringify(unsupported));
      }
    });
  });
});
