import { LogThrottle, type DriverRequest, type DriverResponse, type DriverRoute, type LinkedAccount, type Logger } from '@parley/core';
import type { MetaChannelProfile } from '../channel-profile.js';
import { parseWebhookBody, type WebhookEntry } from '../inbound/webhook-payload.js';
import { verifySignature } from '../security/signature.js';

const SIGNATURE_HEADER = 'x-hub-signature-256';
/**
 * Meta batches at most 1,000 updates in one notification (Graph API webhooks, "Event Notifications"):
 * a body with more entries is not Meta's, and is refused before any entry is looked up.
 */
const MAX_ENTRIES = 1000;
/** Unlinked account ids one log line names (it counts them all). */
const LOGGED_ACCOUNTS = 10;
/** Notifications naming unlinked accounts, or badly signed ones, are logged at most once per this period (anyone can send them). */
const SKIPPED_LOG_MS = 1000;
/** Meta's challenges are numbers; anything longer or odder is not echoed back. */
const CHALLENGE = /^[\w.-]{1,256}$/;

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
      // The server looks the token up by its hash: timing tells nothing of the tokens linked.
      const matched = await request.hasVerifyToken(profile.channel, token);
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
 * `POST /webhook`: Meta's event notifications. Without an `X-Hub-Signature-256` header: 401. Entries
 * of accounts no instance links are skipped (answering 200, so Meta does not disable the app's
 * subscription over them; logged at most once a second, naming a few). The signature must be valid
 * under the app secret of every instance linked to one of the `entry[].id`; otherwise nothing is
 * emitted and the answer is the same 200 `{received: 0}` as for unlinked accounts, so the answer does
 * not tell anyone which account ids are linked (logged at warn at most once a second, naming the
 * accounts: a wrong app secret shows there). More than {@link MAX_ENTRIES} entries: 400. Events are
 * emitted before the answer; no Graph API call delays it.
 */
function notificationRoute(profile: MetaChannelProfile, logger: Logger): DriverRoute {
  const skipped = new LogThrottle(SKIPPED_LOG_MS);
  const forged = new LogThrottle(SKIPPED_LOG_MS);
  return {
    method: 'post',
    path: '/webhook',
    rawBody: true,
    // Meta: "Webhooks payloads can be up to 3MB" (Cloud API webhooks docs); read up to 4 MiB for margin.
    bodyLimitBytes: 4 * 1024 * 1024,
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
      const entries = body.entry ?? [];
      if (entries.length > MAX_ENTRIES) return invalid(`a notification has at most ${MAX_ENTRIES} entries (Meta batches at most ${MAX_ENTRIES} updates)`);

      // Each account is looked up once in the server's index of linked accounts: the cost of a
      // notification does not grow with the number of instances, and is bounded before its
      // signature can be checked (the app secret is the linked account's).
      const accounts = new Map<string, LinkedAccount | null>();
      const targets: { entry: WebhookEntry; account: LinkedAccount }[] = [];
      for (const entry of entries) {
        const id = String(entry?.id);
        if (!accounts.has(id)) accounts.set(id, entry ? await request.linkedAccount(profile.channel, id) : null);
        const account = accounts.get(id);
        if (account) targets.push({ entry, account });
      }
      const secrets = new Set(targets.map(({ account }) => account.link.appSecret));
      for (const secret of secrets) {
        if (verifySignature(raw, signature, secret)) continue;
        const linked = [...new Set(targets.map(({ entry }) => String(entry.id)))];
        const line = { channel: profile.channel, accounts: linked.slice(0, LOGGED_ACCOUNTS), linked: linked.length };
        forged.note((notifications) => logger.warn({ ...line, notifications }, `webhook notification with an invalid ${SIGNATURE_HEADER} signature dropped (check the linked app secret)`));
        return { status: 200, body: { received: 0 } };
      }
      const unknown = [...accounts].filter(([, account]) => !account).map(([id]) => id);
      if (unknown.length > 0) {
        const line = { channel: profile.channel, accounts: unknown.slice(0, LOGGED_ACCOUNTS), unlinked: unknown.length };
        // `notifications`: how many the line stands for (the details are the latest one's).
        skipped.note((notifications) => logger.warn({ ...line, notifications }, 'webhook entries of unlinked accounts skipped'));
      }

      let emitted = 0;
      // Each entry goes to its instance's adapter, wherever the instance runs (a cluster node forwards it to the owner).
      for (const { entry, account } of targets) emitted += await request.ingest(account.instanceId, entry);
      return { status: 200, body: { received: emitted } };
    },
  };
}

/** The webhook routes of one Meta channel, mounted by the server under `/<channel>/webhook`. */
export function webhookRoutes(profile: MetaChannelProfile, logger: Logger): DriverRoute[] {
  return [verificationRoute(profile), notificationRoute(profile, logger)];
}
