import { CapabilityNotSupportedError, ConflictError, redactUrlCredentials, requireCapability, ValidationError } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import { instanceView } from '../instances/instance-view.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { BinaryReply, defineRoute, type RouteDefinition } from '../http/route.js';
import { pictureOf, removePicture, storePicture, userView } from '../instances/profile-picture.js';
import { dataResponse, messageResponse, okResponse, s } from '../http/schema.js';
import { connectionSchema, instanceViewSchema, keyParams, urlField, userSchema, webhookSettingsSchema } from '../schemas/common.schemas.js';
import { assertProxyUrl } from '../services/proxy-url.js';

type Scope = InstanceRuntime;
const tag = 'Instance';

/** Spec 4.1: the instance itself — connection, settings, profile, proxy, mobile flow. */
export function instanceRoutes(ctx: ServerContext): RouteDefinition[] {
  const connection = (rt: Scope) => requireCapability(rt.main, 'connection');
  const profile = (rt: Scope) => requireCapability(rt.main, 'profile');
  const mobile = (rt: Scope) => requireCapability(rt.main, 'mobile');
  const connected = (rt: Scope) => {
    if (!rt.isConnected()) throw new ConflictError('the instance is not connected', 'not_connected');
  };
  return [
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/instance', operationId: 'getInstance', tag, auth: 'instance', params: keyParams,
      summary: 'Instance record (spec 2.1)',
      response: okResponse({ instance: instanceViewSchema }),
      handler: async ({ scope }) => ({ instance: instanceView(scope, ctx.host.publicUrl) }),
    }),
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'post', path: '/{key}/instance', operationId: 'connectInstance', tag, auth: 'instance', params: keyParams,
      summary: 'Connect: answers a QR code while not paired (a `qrcode` event is emitted for each new QR)',
      description: 'Also starts over after the connection stopped. When the channel answers neither a QR code nor the open connection in time, or the attempt fails, it answers at once with `phoneConnected` false, empty `qrcode`, and `connection` saying what goes on (`connecting` with `lastError`, or `stopped`).',
      response: okResponse({
        phoneConnected: s.boolean(), qrcode: s.string(), image: s.string({ description: 'PNG data URI' }), user: userSchema, connection: connectionSchema,
      }),
      handler: async ({ scope }) => {
        const result = await connection(scope).connect();
        await ctx.registry.update(scope.id, { wantsConnection: true });
        return { phoneConnected: result.phoneConnected, qrcode: result.qrcode, image: result.image, user: result.user ? userView(result.user, ctx.host.publicUrl, scope.record.key) : result.user, connection: scope.connection() };
      },
    }),
    defineRoute<unknown, unknown, { phoneNumber: string }, Scope>({
      method: 'post', path: '/{key}/instance/pairing-code', operationId: 'requestPairingCode', tag, auth: 'instance', params: keyParams,
      summary: 'Pairing code for a phone number (XXXX-XXXX)',
      body: s.object({ phoneNumber: s.string({ pattern: '^\\+?\\d{6,15}$', examples: ['5511999990000'], description: 'Digits with country code.' }) }, ['phoneNumber']),
      response: okResponse({ code: s.string({ pattern: '^[A-Z0-9]{4}-[A-Z0-9]{4}$' }) }),
      errors: [409, 422],
      handler: async ({ scope, body }) => {
        const code = await connection(scope).requestPairingCode(body.phoneNumber.replace(/^\+/, ''));
        await ctx.registry.update(scope.id, { wantsConnection: true });
        return { code };
      },
    }),
    defineRoute<unknown, Record<string, boolean | undefined>, unknown, Scope>({
      method: 'patch', path: '/{key}/instance', operationId: 'updateInstanceFlags', tag, auth: 'instance', params: keyParams,
      summary: 'Behaviour flags',
      query: s.object({ markMessageRead: s.flag(), saveMedia: s.flag(), receiveStatusMessage: s.flag(), receivePresence: s.flag() }),
      response: messageResponse,
      handler: async ({ scope, query }) => {
        const flags = { ...scope.record.flags };
        if (query.markMessageRead !== undefined) flags.markMessages = query.markMessageRead;
        if (query.saveMedia !== undefined) flags.saveMedia = query.saveMedia;
        if (query.receiveStatusMessage !== undefined) flags.receiveStatusMessage = query.receiveStatusMessage;
        if (query.receivePresence !== undefined) flags.receivePresence = query.receivePresence;
        if (Object.values(query).every((v) => v === undefined)) {
          throw new ValidationError('query must set at least one of markMessageRead, saveMedia, receiveStatusMessage, receivePresence');
        }
        await ctx.registry.update(scope.id, { flags });
        return { message: 'Instance settings updated' };
      },
    }),
    defineRoute<unknown, unknown, Record<string, unknown>, Scope>({
      method: 'put', path: '/{key}/instance', operationId: 'updateWebhookSettings', tag, auth: 'instance', params: keyParams,
      summary: 'Webhook settings (spec 2.2); members left out keep their value',
      body: webhookSettingsSchema,
      response: dataResponse(webhookSettingsSchema),
      handler: async ({ scope, body }) => {
        await ctx.webhooks.validateSettings(body, 'body');
        const record = await ctx.registry.update(scope.id, { webhook: { ...scope.record.webhook, ...body } });
        return { data: record.webhook };
      },
    }),
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/instance', operationId: 'logoutInstance', tag, auth: 'instance', params: keyParams,
      summary: 'Log out (clears the session)',
      response: messageResponse,
      handler: async ({ scope }) => {
        await connection(scope).logout();
        await ctx.registry.update(scope.id, { phoneConnected: false, user: null, wantsConnection: false });
        return { message: 'Instance logged out' };
      },
    }),
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'post', path: '/{key}/instance/restart', operationId: 'restartInstance', tag, auth: 'instance', params: keyParams,
      summary: 'Restart the connection, keeping the session', response: messageResponse,
      description: '409 `not_connected` while the instance was never paired (connect it first).', errors: [409],
      handler: async ({ scope }) => {
        await connection(scope).restart();
        return { message: 'Instance restarted' };
      },
    }),
    defineRoute<unknown, unknown, { phone?: string }, Scope>({
      method: 'post', path: '/{key}/instance/simulated-scan', operationId: 'simulatedScan', tag, auth: 'instance', params: keyParams,
      summary: 'Simulated networks only: a simulated phone scans the QR code shown, and the answer comes once the connection opened',
      description: 'Offered when the instance\'s `connection.simulator` lists phones (a channel on a simulated network, such as WhatsApp on the in-process simulator of docs/guides/whatsapp-offline.md). 422 `capability_not_supported` on a real network; 409 `no_qr_code` when no QR code shows (connect first); 400 for a phone the network does not have.',
      body: s.object({ phone: s.string({ pattern: '^\\+?\\d{6,15}$', examples: ['5511900000001'], description: 'A number of `connection.simulator.phones`; default the first.' }) }),
      response: okResponse({ phone: s.string(), phoneConnected: s.boolean(), connection: connectionSchema }),
      errors: [409, 422],
      handler: async ({ scope, body }) => {
        const capability = connection(scope);
        if (!capability.simulateScan) throw new CapabilityNotSupportedError(scope.main.channel, 'simulated-scan', 'the channel is not on a simulated network');
        const { phone, state } = await capability.simulateScan(body.phone?.replace(/^\+/, ''));
        if (state.phoneConnected) await ctx.registry.update(scope.id, { wantsConnection: true });
        return { phone, phoneConnected: state.phoneConnected, connection: scope.connection() };
      },
    }),
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'post', path: '/{key}/instance/resync', operationId: 'resyncInstance', tag, auth: 'instance', params: keyParams,
      summary: 'Full resynchronisation of chats, contacts and labels', response: messageResponse, errors: [409],
      handler: async ({ scope }) => {
        connected(scope);
        await connection(scope).resync();
        return { message: 'Resync started' };
      },
    }),
    defineRoute<unknown, unknown, { name: string }, Scope>({
      method: 'put', path: '/{key}/instance/profile/name', operationId: 'setProfileName', tag, auth: 'instance', params: keyParams,
      summary: 'Profile name', body: s.object({ name: s.text(25) }, ['name']), response: dataResponse(userSchema), errors: [409, 422],
      handler: async ({ scope, body }) => {
        connected(scope);
        await profile(scope).setName(body.name);
        const record = await ctx.registry.update(scope.id, { user: scope.record.user ? { ...scope.record.user, name: body.name } : null });
        return { data: userView(record.user, ctx.host.publicUrl, record.key) };
      },
    }),
    defineRoute<unknown, unknown, { text: string }, Scope>({
      method: 'put', path: '/{key}/instance/status', operationId: 'setProfileStatus', tag, auth: 'instance', params: keyParams,
      summary: 'Profile about text', body: s.object({ text: s.string({ maxLength: 139 }) }, ['text']),
      response: dataResponse(s.object({ text: s.string() })), errors: [409, 422],
      handler: async ({ scope, body }) => {
        connected(scope);
        await profile(scope).setStatus(body.text);
        return { data: { text: body.text } };
      },
    }),
    defineRoute<unknown, unknown, { url: string }, Scope>({
      method: 'put', path: '/{key}/instance/profile/picture', operationId: 'setProfilePicture', tag, auth: 'instance', params: keyParams,
      summary: 'Profile picture from a URL or data URI', body: s.object({ url: urlField }, ['url']), bodyLimit: 'media', response: dataResponse(userSchema), errors: [409, 413, 422],
      handler: async ({ scope, body }) => {
        connected(scope);
        const image = await ctx.media.resolve(body.url, 'body.url', 'image', undefined, scope.record);
        const { imageProfile } = await profile(scope).setPicture(image);
        const account = scope.user();
        if (account) await storePicture(ctx.storage, scope.id, account.id, image);
        const record = await ctx.registry.update(scope.id, { user: scope.record.user ? { ...scope.record.user, imageProfile } : null });
        return { data: userView(record.user, ctx.host.publicUrl, record.key) };
      },
    }),
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/instance/profile/picture', operationId: 'removeProfilePicture', tag, auth: 'instance', params: keyParams,
      summary: 'Remove the profile picture', response: dataResponse(userSchema), errors: [409, 422],
      handler: async ({ scope }) => {
        connected(scope);
        await profile(scope).removePicture();
        await removePicture(ctx.storage, scope.id);
        const user = scope.record.user ? { ...scope.record.user } : null;
        if (user) delete user.imageProfile;
        const record = await ctx.registry.update(scope.id, { user });
        return { data: userView(record.user, ctx.host.publicUrl, record.key) };
      },
    }),
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/instance/profile/picture', operationId: 'getProfilePicture', tag, auth: 'instance', params: keyParams,
      summary: 'The account picture (the URL of `user.imageProfile`)',
      description: 'Answers the picture last set with PUT, with its Content-Type; while none is set (or the instance is not connected) a placeholder `image/svg+xml`. `Cache-Control: no-cache`: the URL stays the same when the picture changes.',
      response: { binary: ['image/*'] },
      handler: async ({ scope, res }) => {
        const picture = await pictureOf(ctx.storage, scope.id, scope.user()?.id);
        res.setHeader('Cache-Control', 'no-cache');
        return new BinaryReply(picture.data, picture.mimetype);
      },
    }),
    defineRoute<unknown, unknown, { proxy: string }, Scope>({
      method: 'post', path: '/{key}/instance/proxy', operationId: 'setProxy', tag, auth: 'instance', params: keyParams,
      summary: 'Proxy for the connection, media transfers and every URL fetched for the instance (http, https, socks4, socks5; credentials allowed; empty removes it). The connection uses it from the next (re)connect, URL fetches from the next fetch.',
      body: s.object({
        proxy: s.string({ maxLength: 2048, description: 'http, https or socks URL (`socks5://user:pass@host:port`), spaces around ignored; empty removes the proxy.' }),
      }, ['proxy']),
      response: dataResponse(s.object({ proxy: s.string() })),
      handler: async ({ scope, body }) => {
        const proxy = body.proxy.trim();
        if (proxy) await assertProxyUrl(proxy, ctx.host.allowPrivateProxies ?? ctx.host.allowPrivateUrls);
        await ctx.registry.update(scope.id, { proxy: proxy || undefined });
        return { data: { proxy: proxy ? redactUrlCredentials(proxy) : '' } };
      },
    }),
    defineRoute<unknown, unknown, { phoneNumberCountryCode: string; phoneNumberNationalNumber: string; phoneNumberMobileNetworkCode: string }, Scope>({
      method: 'post', path: '/{key}/instance/mobile/prepare', operationId: 'mobilePrepare', tag, auth: 'instance', params: keyParams,
      summary: 'Mobile registration, step 1: the phone number',
      body: s.object({
        phoneNumberCountryCode: s.string({ pattern: '^\\+?\\d{1,4}$', examples: ['55'] }),
        phoneNumberNationalNumber: s.string({ pattern: '^\\d{4,14}$', examples: ['11999990000'] }),
        phoneNumberMobileNetworkCode: s.string({ pattern: '^\\d{1,3}$', examples: ['5'] }),
      }, ['phoneNumberCountryCode', 'phoneNumberNationalNumber', 'phoneNumberMobileNetworkCode']),
      response: messageResponse, errors: [409, 422],
      handler: async ({ scope, body }) => {
        await mobile(scope).prepare({ ...body, phoneNumberCountryCode: body.phoneNumberCountryCode.replace(/^\+/, '') });
        return { message: 'Mobile registration prepared' };
      },
    }),
    defineRoute<unknown, unknown, { method: 'sms' | 'voice' }, Scope>({
      method: 'post', path: '/{key}/instance/mobile/request-code', operationId: 'mobileRequestCode', tag, auth: 'instance', params: keyParams,
      summary: 'Mobile registration, step 2: send the code', body: s.object({ method: s.enum(['sms', 'voice']) }, ['method']),
      response: dataResponse(s.openObject({ method: s.string(), length: s.integer() }, ['method'])), errors: [409, 422, 429],
      handler: async ({ scope, body }) => ({ data: await mobile(scope).requestCode(body.method) }),
    }),
    defineRoute<unknown, unknown, { code: string }, Scope>({
      method: 'post', path: '/{key}/instance/mobile/verify', operationId: 'mobileVerify', tag, auth: 'instance', params: keyParams,
      summary: 'Mobile registration, step 3: verify the code', body: s.object({ code: s.string({ pattern: '^\\d{3}-?\\d{3}$', examples: ['123-456'] }) }, ['code']),
      response: dataResponse(s.object({ phoneConnected: s.boolean() })), errors: [409, 422],
      handler: async ({ scope, body }) => ({ data: await mobile(scope).verify(body.code.replace('-', '')) }),
    }),
  ];
}
