import { randomBytes } from 'node:crypto';
import { GuardedGetError } from '@parley/net';
import { ValidationError } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, s } from '../http/schema.js';
import { keyParams } from '../schemas/common.schemas.js';

/** The webhook URL settings a handshake may be sent to (the instance's own receivers, nothing else). */
const URL_SETTINGS = ['webhookMessage', 'webhookGroup', 'webhookConnection', 'webhookQrCode', 'webhookMessageFromMe', 'webhookHistory'] as const;
/** A receiver's answer is the challenge echoed: a few bytes, read within a short time. */
const HANDSHAKE_LIMITS = { maxBytes: 1024, timeoutMs: 10_000 };

/**
 * Meta's subscription handshake, performed by Parley against the instance's receiver when the operator
 * asks for it (docs/cloud-api.md): `GET <url>?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`,
 * verified when the receiver answers 2xx with exactly the challenge.
 */
export function hubVerifyRoutes(ctx: ServerContext): RouteDefinition[] {
  return [
    defineRoute<unknown, unknown, { verifyToken: string; url?: string }, InstanceRuntime>({
      method: 'post', path: '/{key}/instance/webhook/verify', operationId: 'verifyWebhookReceiver', tag: 'Webhooks', auth: 'instance', params: keyParams,
      summary: 'Perform Meta\'s webhook subscription handshake against a receiver of the instance',
      description: 'Sends `GET <url>?hub.mode=subscribe&hub.verify_token=<verifyToken>&hub.challenge=<random>` to `url` (default: `webhookMessage`), which '
        + 'must be one of the instance\'s webhook URLs, through the same private-network guard as deliveries. Answers `data.verified` true when the '
        + 'receiver answered 2xx with exactly the challenge; false with `reason` otherwise (its status in `receiverStatus` when it answered). '
        + 'Nothing is changed either way.',
      body: s.object({
        verifyToken: s.text(256, { description: 'The token the receiver expects (what Meta calls the verify token).' }),
        url: s.text(2048, { description: 'One of the instance\'s webhook URLs; default webhookMessage.' }),
      }, ['verifyToken'], { examples: [{ verifyToken: 'my-verify-token' }] }),
      response: dataResponse(s.openObject({
        verified: s.boolean(), url: s.string(), reason: s.string(), receiverStatus: s.integer(),
      }, ['verified', 'url'])),
      handler: async ({ scope, body }) => {
        const url = body.url ?? scope.record.webhook.webhookMessage;
        const configured = new Set(URL_SETTINGS.map((k) => scope.record.webhook[k]).filter(Boolean));
        if (!url || !configured.has(url)) {
          throw new ValidationError(body.url ? 'body.url must be one of the instance\'s webhook URLs' : 'the instance has no webhookMessage URL to verify: set it, or name one of its webhook URLs in body.url', { fields: [{ field: 'body.url', message: 'is no webhook URL of the instance' }] });
        }
        const challenge = randomBytes(12).toString('hex');
        const target = new URL(url);
        target.searchParams.set('hub.mode', 'subscribe');
        target.searchParams.set('hub.verify_token', body.verifyToken);
        target.searchParams.set('hub.challenge', challenge);
        try {
          const answer = await ctx.media.download(target.href, 'body.url', HANDSHAKE_LIMITS);
          const echoed = answer.data.toString('utf8').trim();
          return { data: echoed === challenge ? { verified: true, url } : { verified: false, url, reason: 'the receiver answered without echoing the challenge' } };
        } catch (err) {
          if (!(err instanceof GuardedGetError)) throw err;
          return { data: { verified: false, url, reason: err.message, ...(err.httpStatus ? { receiverStatus: err.httpStatus } : {}) } };
        }
      },
    }),
  ];
}
