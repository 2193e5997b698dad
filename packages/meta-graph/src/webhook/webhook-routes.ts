import type { DriverRequest, DriverResponse, DriverRoute, InstanceRecord, Logger, SocialLink } from '@parley/core';
import { isMetaChannelAdapter } from '../adapter/meta-adapter.js';
import type { MetaChannelProfile } from '../channel-profile.js';
import { parseWebhookBody, type WebhookEntry } from '../inbound/webhook-payload.js';
import { constantTimeEquals, verifySignature } from '../security/signature.js';

const SIGNATURE_HEADER = 'x-hub-signature-256';
/** Meta's challenges are numbers; anything longer or odder is not echoed back. */
const CHALLENGE = /^[\w.-]{1,256}$/;

function linksOf(instances: InstanceRecord[], profile: MetaChannelProfile): { instance: InstanceRecord; link: SocialLink }[] {
  return instances.flatMap((instance) => {
    const link = instance.links?.[profile.channel];
    return link ? [{ instance, link }] : [];
  });
}

/**
 * `GET /webhook`: Meta's subscription handshake. Answers `hub.challenge` as text when `hub.mode` is
 * `subscribe` and `hub.verify_token` equals (in constant time) the verify token of an instance
 * linked to this channel; 403 otherwise.
 */
function verificationRoute(profile: MetaChannelProfile): DriverRoute {
  return {
    method: 'get',
    path: '/webhook',
    summary: `${profile.label} webhook verification (Meta subscription handshake)`,
    // Open: whatever else Meta adds to the handshake is ignored, not refused.
    query: {
      type: 'object',
      properties: {
        'hub.mode': { type: 'string', description: '`subscribe`' },
        'hub.verify_token': { type: 'string', description: 'The verify token of an instance linked to this channel' },
        'hub.challenge': { type: 'string', description: 'Echoed back as the answer when the token matches' },
      },
    },
    response: { text: 'text/plain' },
    errors: [403],
    async handler(request: DriverRequest): Promise<DriverResponse> {
      const mode = request.query['hub.mode'];
      const token = request.query['hub.verify_token'];
      const challenge = request.query['hub.challenge'];
      if (mode !== 'subscribe' || !token || !challenge || !CHALLENGE.test(challenge)) return forbidden();
      let matched = false;
      // Every candidate is compared, so timing does not tell how many links exist or which matched.
      for (const { link } of linksOf(await request.instances(), profile)) {
        if (constantTimeEquals(link.verifyToken, token)) matched = true;
      }
      return matched ? { status: 200, body: challenge, contentType: 'text/plain' } : forbidden();
    },
  };
}

/** Header lookup that does not depend on how the host cased the names. */
function headerOf(request: DriverRequest, name: string): string | undefined {
  const key = Object.keys(request.headers).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : request.headers[key];
}

function forbidden(): DriverResponse {
  return { status: 403, body: { status: 403, error: { code: 'forbidden', message: 'verification failed' } } };
}

function invalid(message: string): DriverResponse {
  return { status: 400, body: { status: 400, error: { code: 'validation_failed', message } } };
}

function unauthorized(message: string): DriverResponse {
  return { status: 401, body: { status: 401, error: { code: 'unauthorized', message } } };
}

/**
 * `POST /webhook`: Meta's event notifications. The raw body must carry a valid
 * `X-Hub-Signature-256` under the app secret of every instance linked to one of its `entry[].id`;
 * otherwise 401 and nothing is emitted. Entries of accounts no instance links are skipped (answering
 * 200, so Meta does not disable the app's subscription over them). Events are emitted before the
 * answer; no Graph API call delays it.
 */
function notificationRoute(profile: MetaChannelProfile, logger: Logger): DriverRoute {
  return {
    method: 'post',
    path: '/webhook',
    rawBody: true,
    summary: `${profile.label} webhook notifications (signed by Meta)`,
    response: {
      type: 'object',
      required: ['received'],
      properties: { received: { type: 'integer', description: 'Channel events emitted from this notification' } },
    },
    errors: [401],
    async handler(request: DriverRequest): Promise<DriverResponse> {
      const signature = headerOf(request, SIGNATURE_HEADER);
      const raw = request.rawBody;
      if (!signature) return unauthorized(`missing ${SIGNATURE_HEADER} header`);
      if (!raw || raw.length === 0) return invalid('empty body');
      const body = parseWebhookBody(raw);
      if (!body || body.object !== profile.webhookObject) {
        return invalid(`body is not ${/^[AEIOU]/i.test(profile.label) ? 'an' : 'a'} ${profile.label} webhook notification`);
      }

      const links = linksOf(await request.instances(), profile);
      const targets: { entry: WebhookEntry; instance: InstanceRecord; link: SocialLink }[] = [];
      const unknown: string[] = [];
      for (const entry of body.entry ?? []) {
        const matches = links.filter(({ link }) => entry && link.accountId === String(entry.id));
        if (matches.length === 0) unknown.push(String(entry?.id));
        for (const { instance, link } of matches) targets.push({ entry, instance, link });
      }
      const secrets = new Set(targets.map(({ link }) => link.appSecret));
      for (const secret of secrets) {
        if (!verifySignature(raw, signature, secret)) return unauthorized(`invalid ${SIGNATURE_HEADER} signature`);
      }
      if (unknown.length > 0) logger.warn({ channel: profile.channel, accounts: unknown }, 'webhook entries of unlinked accounts skipped');

      let emitted = 0;
      for (const { entry, instance } of targets) {
        const adapter = await request.adapter(instance.id, profile.channel);
        if (!isMetaChannelAdapter(adapter)) throw new Error(`${profile.channel} adapter of ${instance.id} cannot ingest webhooks`);
        emitted += await adapter.ingest(entry);
      }
      return { status: 200, body: { received: emitted } };
    },
  };
}

/** The webhook routes of one Meta channel, mounted by the server under `/<channel>/webhook`. */
export function webhookRoutes(profile: MetaChannelProfile, logger: Logger): DriverRoute[] {
  return [verificationRoute(profile), notificationRoute(profile, logger)];
}
