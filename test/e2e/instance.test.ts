import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InstanceClient, Operations } from '@parley/client';
import { AnswerRecorder } from '../support/answer-recorder.js';
import { expectError } from '../support/api-assertions.js';
import { apiError, apiErrorAnswer, type ErrorAnswer } from '../support/api-error.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { decodePngDataUri, PNG_SIGNATURE } from './fixtures/local-http.js';

const DEFAULT_WEBHOOK = {
  allowWebhook: false, allowNumber: 'all', webhookFormat: 'native', webhookMessage: '', webhookGroup: '', webhookConnection: '',
  webhookQrCode: '', webhookMessageFromMe: '', webhookHistory: '',
};
const EMPTY_BUSINESS = { wid: '', description: '', website: [], category: '' };
const NOT_FOUND: ErrorAnswer = { status: 404, error: { code: 'instance_not_found', message: 'instance not found' } };
const NOT_CONNECTED: ErrorAnswer = { status: 409, error: { code: 'not_connected', message: 'the instance is not connected' } };

/** Every operation of spec 4.1 this file covers (POST /{key}/instance/mongodb is covered with the MongoDB plugin). */
const OPERATIONS: [string, (api: InstanceClient) => Promise<unknown>][] = [
  ['getInstance', (api) => api.call('getInstance')],
  ['connectInstance', (api) => api.call('connectInstance')],
  ['requestPairingCode', (api) => api.call('requestPairingCode', { body: { phoneNumber: '5511999990000' } })],
  ['updateInstanceFlags', (api) => api.call('updateInstanceFlags', { query: { saveMedia: true } })],
  ['updateWebhookSettings', (api) => api.call('updateWebhookSettings', { body: { allowWebhook: true } })],
  ['logoutInstance', (api) => api.call('logoutInstance')],
  ['restartInstance', (api) => api.call('restartInstance')],
  ['resyncInstance', (api) => api.call('resyncInstance')],
  ['setProfileName', (api) => api.call('setProfileName', { body: { name: 'x' } })],
  ['setProfileStatus', (api) => api.call('setProfileStatus', { body: { text: 'x' } })],
  ['setProfilePicture', (api) => api.call('setProfilePicture', { body: { url: 'http://127.0.0.1/x.png' } })],
  ['removeProfilePicture', (api) => api.call('removeProfilePicture')],
  ['setProxy', (api) => api.call('setProxy', { body: { proxy: '' } })],
  ['mobilePrepare', (api) => api.call('mobilePrepare', {
    body: { phoneNumberCountryCode: '55', phoneNumberNationalNumber: '11999990000', phoneNumberMobileNetworkCode: '1' },
  })],
  ['mobileRequestCode', (api) => api.call('mobileRequestCode', { body: { method: 'sms' } })],
  ['mobileVerify', (api) => api.call('mobileVerify', { body: { code: '123-456' } })],
  ['webhookStatistics', (api) => api.call('webhookStatistics')],
];

describe('spec 4.1 instance endpoints over real HTTP', () => {
  let t: TestServer;
  let recorder: AnswerRecorder;

  before(async () => {
    t = await startTestServer();
    recorder = new AnswerRecorder(t);
  });
  after(() => t.stop());

  const get = async (key: string) => (await t.client(key).call('getInstance')).instance as Record<string, any>;

  describe('GET /{key}/instance', () => {
    it('answers exactly the record of spec 2.1 for a fresh instance (with the documented extensions)', async () => {
      const created = await t.createInstance({ name: 'fresh', number: '5511910000001' });
      const res = await recorder.instance(created.key).call('getInstance');
      assert.equal(recorder.last.status, 200);
      assert.match(recorder.last.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(res, {
        status: 200,
        instance: {
          id: created.id, name: 'fresh', channel: 'sandbox',
          receive_status_message: false, save_media: false, receive_presence: true, permission: 0, mark_messages: false, blocked: false,
          user: null, phoneConnected: false, webhook: DEFAULT_WEBHOOK, businessProfile: EMPTY_BUSINESS, health: 'healthy',
          connection: { status: 'disconnected' }, links: {},
        },
      });
      assert.ok(!JSON.stringify(res).includes(created.key), 'the key is not echoed');
      assert.ok(!JSON.stringify(res).includes(created.webhookSecret), 'the webhook secret is not shown');
    });

    it('shows the connected account: user id, lid, name; businessProfile.wid is the account JID', async () => {
      const created = await t.connectedSandbox({ name: 'connected', number: '5511910000002' });
      const instance = await get(created.key);
      assert.equal(instance.phoneConnected, true);
      assert.deepEqual(Object.keys(instance.user).sort(), ['id', 'imageProfile', 'lid', 'name']);
      assert.equal(instance.user.id, '5511910000002@s.whatsapp.net');
      // Spec 2.1 types imageProfile as a URL: a stable one, also while no picture is set.
      assert.equal(instance.user.imageProfile, `${t.server.context.host.publicUrl}/${created.key}/instance/profile/picture`);
      assert.match(instance.user.lid, /^\d{15}@lid$/);
      assert.equal(instance.user.name, 'connected');
      assert.deepEqual(instance.businessProfile, { ...EMPTY_BUSINESS, wid: '5511910000002@s.whatsapp.net' });
    });
  });

  describe('POST /{key}/instance (connect)', () => {
    it('answers a QR code whose image is a PNG data URI, user null, and emits a qrcode event', async () => {
      const created = await t.createInstance({ number: '5511910000003' });
      const api = t.client(created.key);
      const res = await api.call('connectInstance');
      assert.deepEqual(Object.keys(res).sort(), ['connection', 'image', 'phoneConnected', 'qrcode', 'status', 'user']);
      assert.equal(res.status, 200);
      assert.equal(res.phoneConnected, false);
      assert.equal(res.user, null);
      assert.deepEqual(res.connection, { status: 'waiting_for_qr_scan' });
      assert.equal(typeof res.qrcode, 'string');
      assert.ok(res.qrcode.length > 20);
      const bytes = decodePngDataUri(res.image);
      assert.deepEqual(bytes.subarray(0, 8), PNG_SIGNATURE);
      assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
      await t.settle();
      const qrEvents = t.events.filter((e) => e.instance === created.id && e.type === 'qrcode');
      assert.equal(qrEvents.length, 1);
      assert.deepEqual(qrEvents.map((e) => (e as { qr: string; image: string })).map(({ qr, image }) => ({ qr, image })), [{ qr: res.qrcode, image: res.image }]);
      // Still waiting: asking again answers the same QR, no new event.
      const again = await api.call('connectInstance');
      assert.equal(again.qrcode, res.qrcode);
      await t.settle();
      assert.equal(t.events.filter((e) => e.instance === created.id && e.type === 'qrcode').length, 1);
      assert.equal((await get(created.key)).phoneConnected, false);
    });

    it('after the scan answers phoneConnected true with the user and no QR', async () => {
      const created = await t.connectedSandbox({ name: 'scanned', number: '5511910000004' });
      const res = await t.client(created.key).call('connectInstance');
      assert.deepEqual(res, {
        status: 200, phoneConnected: true, qrcode: '', image: '',
        user: { id: '5511910000004@s.whatsapp.net', lid: res.user?.lid, name: 'scanned', imageProfile: `${t.server.context.host.publicUrl}/${created.key}/instance/profile/picture` }, connection: { status: 'open' },
      });
      assert.deepEqual((await get(created.key)).connection, { status: 'open' });
      const open = t.events.filter((e) => e.instance === created.id && e.type === 'connection');
      assert.deepEqual(open.map((e) => [e.type, (e as { status: string }).status, (e as { code: number }).code]), [['connection', 'open', 200]]);
    });
  });

  describe('POST /{key}/instance/pairing-code', () => {
    it('answers two groups of 4 characters joined by a hyphen; entering it connects', async () => {
      const created = await t.createInstance({ number: '5511910000005' });
      const api = t.client(created.key);
      const res = await api.call('requestPairingCode', { body: { phoneNumber: '+5511910000005' } });
      assert.deepEqual(Object.keys(res).sort(), ['code', 'status']);
      assert.equal(res.status, 200);
      assert.match(res.code, /^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
      const scan = await api.call('sandbox_post_key_scan', { body: { code: res.code.toLowerCase() } });
      assert.equal(scan.status, 200);
      assert.equal(scan.data.phoneConnected, true);
      await t.settle();
      assert.equal((await get(created.key)).phoneConnected, true);
      await assert.rejects(api.call('requestPairingCode', { body: { phoneNumber: '5511910000005' } }),
        apiErrorAnswer({ status: 409, error: { code: 'already_connected', message: 'the instance is already connected' } }));
    });

    it('the sandbox scan route refuses a malformed body, naming the member, and stays unpaired', async () => {
      const created = await t.createInstance({ number: '5511910000049' });
      const api = t.client(created.key);
      await api.call('requestPairingCode', { body: { phoneNumber: '5511910000049' } });
      // Raw HTTP: the typed client refuses these bodies.
      expectError(await t.request('POST', `/sandbox/${created.key}/scan`, { code: 5 }), 400, 'validation_failed', 'body.code must be string');
      expectError(await t.request('POST', `/sandbox/${created.key}/scan`, { pin: '1' }), 400, 'validation_failed', 'body.pin is not allowed');
      assert.equal((await get(created.key)).phoneConnected, false);
    });

    it('refuses bad phone numbers naming the field, changing nothing', async () => {
      const created = await t.createInstance({ number: '5511910000006' });
      const api = t.client(created.key);
      const typed: [string, string][] = [
        ['55-11', 'body.phoneNumber must match pattern "^\\+?\\d{6,15}$"'],
        ['5511910000099', 'body.phoneNumber must be this sandbox instance\'s number (5511910000006)'],
      ];
      for (const [phoneNumber, message] of typed) {
        await assert.rejects(api.call('requestPairingCode', { body: { phoneNumber } }), apiError(400, 'validation_failed', message), phoneNumber);
      }
      // Bodies the typed client refuses (a missing member, a wrong type, an unknown member): sent raw.
      const untyped: [unknown, string][] = [
        [{}, 'body.phoneNumber is required'],
        [{ phoneNumber: 5511910000006 }, 'body.phoneNumber must be string'],
        [{ phoneNumber: '5511910000006', extra: 1 }, 'body.extra is not allowed'],
      ];
      for (const [body, message] of untyped) {
        const res = await t.request('POST', `/${created.key}/instance/pairing-code`, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.code, 'validation_failed');
        assert.equal(res.body.error.message, message);
      }
      await assert.rejects(api.call('sandbox_post_key_scan'), apiError(409, 'not_pairing'));
      assert.equal((await get(created.key)).phoneConnected, false);
    });
  });

  describe('PATCH /{key}/instance (flags)', () => {
    it('sets the four flags, answers a message, and GET reflects them; flags left out keep their value', async () => {
      const created = await t.createInstance({ number: '5511910000007' });
      const api = t.client(created.key);
      const res = await api.call('updateInstanceFlags', { query: { markMessageRead: true, saveMedia: true, receiveStatusMessage: true, receivePresence: false } });
      assert.deepEqual(res, { status: 200, message: 'Instance settings updated' });
      let instance = await get(created.key);
      assert.deepEqual([instance.mark_messages, instance.save_media, instance.receive_status_message, instance.receive_presence], [true, true, true, false]);
      const partial = await api.call('updateInstanceFlags', { query: { saveMedia: false } });
      assert.equal(partial.status, 200);
      instance = await get(created.key);
      assert.deepEqual([instance.mark_messages, instance.save_media, instance.receive_status_message, instance.receive_presence], [true, false, true, false]);
      assert.equal(instance.permission, 0);
      assert.equal(instance.blocked, false);
    });

    it('refuses no flag, non-boolean values and unknown parameters, changing nothing', async () => {
      const created = await t.createInstance({ number: '5511910000008' });
      const before = await get(created.key);
      await assert.rejects(t.client(created.key).call('updateInstanceFlags', { query: {} }),
        apiError(400, 'validation_failed', 'query must set at least one of markMessageRead, saveMedia, receiveStatusMessage, receivePresence'));
      // Queries the typed client refuses (a value that is not boolean, an unknown parameter): sent raw.
      const cases: [string, string][] = [
        ['?saveMedia=maybe', 'query.saveMedia must be boolean'],
        ['?saveMedia=true&colour=red', 'query.colour is not allowed'],
      ];
      for (const [query, message] of cases) {
        const res = await t.request('PATCH', `/${created.key}/instance${query}`);
        assert.deepEqual(res.body, { status: 400, error: { code: 'validation_failed', message, ...(res.body.error.details ? { details: res.body.error.details } : {}) } }, query);
      }
      assert.deepEqual(await get(created.key), before);
    });
  });

  describe('PUT /{key}/instance (webhook settings, spec 2.2)', () => {
    it('writes the settings, answers them, GET reflects them, and members left out keep their value', async () => {
      const created = await t.createInstance({ number: '5511910000009' });
      const settings = {
        allowWebhook: true, allowNumber: 'all', webhookFormat: 'meta', webhookMessage: 'https://hooks.example.com/messages',
        webhookGroup: 'https://hooks.example.com/groups', webhookConnection: '', webhookQrCode: 'http://127.0.0.1:9/qr',
        webhookMessageFromMe: '', webhookHistory: 'https://hooks.example.com/history',
      };
      const api = t.client(created.key);
      const res = await api.call('updateWebhookSettings', { body: settings });
      assert.deepEqual(res, { status: 200, data: settings });
      assert.deepEqual((await get(created.key)).webhook, settings);
      const partial = await api.call('updateWebhookSettings', { body: { webhookFormat: 'both', allowNumber: '5511999990000, 5511999990001' } });
      const merged = { ...settings, webhookFormat: 'both', allowNumber: '5511999990000, 5511999990001' };
      assert.deepEqual(partial, { status: 200, data: merged });
      assert.deepEqual((await get(created.key)).webhook, merged);
    });

    it('refuses bad settings naming the field, changing nothing', async () => {
      const created = await t.createInstance({ number: '5511910000010' });
      const typed: [Operations['updateWebhookSettings']['body'], string][] = [
        [{ webhookMessage: 'ftp://hooks.example.com/x' }, 'body.webhookMessage must use http, https'],
        [{ webhookGroup: 'not a url' }, 'body.webhookGroup must be an absolute URL'],
        [{ webhookFormat: 'xml' }, 'body.webhookFormat must be one of native, meta, cloud-api, both'],
        [{ allowNumber: 'some' }, 'body.allowNumber must match pattern "^\\s*(all|\\+?(\\d{6,20})(\\s*,\\s*\\+?(\\d{6,20}))*)\\s*$"'],
      ];
      for (const [body, message] of typed) {
        await assert.rejects(t.client(created.key).call('updateWebhookSettings', { body }), apiError(400, 'validation_failed', message), JSON.stringify(body));
      }
      // Bodies the typed client refuses (a wrong type, an unknown member): sent raw.
      const untyped: [unknown, string][] = [
        [{ allowWebhook: 'yes' }, 'body.allowWebhook must be boolean'],
        [{ webhookUrl: 'https://x.example.com' }, 'body.webhookUrl is not allowed'],
      ];
      for (const [body, message] of untyped) {
        const res = await t.request('PUT', `/${created.key}/instance`, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.code, 'validation_failed');
        assert.equal(res.body.error.message, message);
      }
      assert.deepEqual((await get(created.key)).webhook, DEFAULT_WEBHOOK);
    });
  });

  describe('DELETE /{key}/instance (logout)', () => {
    it('logs out: phoneConnected false, user null, a close event; a new connect shows a QR again', async () => {
      const created = await t.connectedSandbox({ name: 'leaving', number: '5511910000011' });
      const api = t.client(created.key);
      const res = await api.call('logoutInstance');
      assert.deepEqual(res, { status: 200, message: 'Instance logged out' });
      await t.settle();
      const instance = await get(created.key);
      assert.equal(instance.phoneConnected, false);
      assert.equal(instance.user, null);
      const close = t.events.filter((e) => e.instance === created.id && e.type === 'connection' && (e as { status: string }).status === 'close');
      assert.deepEqual(close.map((e) => ({ code: (e as { code: number }).code, reason: (e as { reason: string }).reason, loggedOut: (e as { loggedOut: boolean }).loggedOut })),
        [{ code: 401, reason: 'logged_out', loggedOut: true }]);
      const reconnect = await api.call('connectInstance');
      assert.equal(reconnect.phoneConnected, false);
      assert.deepEqual(decodePngDataUri(reconnect.image).subarray(0, 8), PNG_SIGNATURE);
      // Logging out twice is harmless.
      assert.equal((await api.call('logoutInstance')).status, 200);
    });
  });

  describe('POST /{key}/instance/restart and /resync', () => {
    it('restart reconnects with the same session and answers a message', async () => {
      const created = await t.connectedSandbox({ name: 'restarting', number: '5511910000012' });
      const res = await t.client(created.key).call('restartInstance');
      assert.deepEqual(res, { status: 200, message: 'Instance restarted' });
      await t.settle();
      const connection = t.events.filter((e) => e.instance === created.id && e.type === 'connection').map((e) => `${(e as { status: string }).status}:${(e as { code: number }).code}`);
      assert.deepEqual(connection, ['open:200', 'close:515', 'open:200']);
      const instance = await get(created.key);
      assert.equal(instance.phoneConnected, true);
      assert.equal(instance.user.id, '5511910000012@s.whatsapp.net');
    });

    it('restart of a never-paired instance is a 409', async () => {
      const created = await t.createInstance({ number: '5511910000013' });
      await assert.rejects(t.client(created.key).call('restartInstance'),
        apiErrorAnswer({ status: 409, error: { code: 'not_connected', message: 'the instance is not paired: connect it first' } }));
    });

    it('resync answers a message and emits a full history of chats and contacts', async () => {
      const created = await t.connectedSandbox({ name: 'resyncing', number: '5511910000014' });
      const res = await t.client(created.key).call('resyncInstance');
      assert.deepEqual(res, { status: 200, message: 'Resync started' });
      await t.settle();
      const history = t.events.filter((e) => e.instance === created.id && e.type === 'history');
      assert.equal(history.length, 1);
      assert.equal((history[0] as { isLatest: boolean }).isLatest, true);
    });

    it('resync while not connected is a 409 not_connected', async () => {
      const created = await t.createInstance({ number: '5511910000015' });
      await assert.rejects(t.client(created.key).call('resyncInstance'), apiErrorAnswer(NOT_CONNECTED));
    });
  });

  describe('mobile registration', () => {
    it('validates the body before the registration state (covered in depth by mobile-registration.test.ts)', async () => {
      const created = await t.createInstance({ number: '5511910000025' });
      await assert.rejects(t.client(created.key).call('mobileVerify', { body: { code: 'abc' } }),
        apiError(400, 'validation_failed', 'body.code must match pattern "^\\d{3}-?\\d{3}$"'));
      // Bodies the typed client refuses (missing members, a value outside the union): sent raw.
      const cases: [string, unknown, string][] = [
        ['/instance/mobile/prepare', { phoneNumberCountryCode: '55' }, 'body.phoneNumberNationalNumber is required; body.phoneNumberMobileNetworkCode is required'],
        ['/instance/mobile/request-code', { method: 'email' }, 'body.method must be one of "sms", "voice"'],
      ];
      for (const [path, body, message] of cases) {
        const res = await t.request('POST', `/${created.key}${path}`, body);
        assert.equal(res.status, 400, path);
        assert.equal(res.body.error.message, message);
      }
    });
  });

  describe('GET /{key}/instance/webhook/statistics', () => {
    it('answers the four integers of spec 2.3', async () => {
      const created = await t.createInstance({ number: '5511910000026' });
      const res = await t.client(created.key).call('webhookStatistics');
      assert.deepEqual(res, { status: 200, data: { totalSent: 0, totalFailed: 0, totalPending: 0, avgResponseTime: 0 } });
    });
  });

  describe('an unknown key', () => {
    it('answers 404 instance_not_found on every operation, whatever the body', async () => {
      const api = t.client('unknownKeyAAAAAAAAAAAAAAAAAAAAAA');
      for (const [operation, call] of OPERATIONS) await assert.rejects(call(api), apiErrorAnswer(NOT_FOUND), operation);
    });
  });
});
