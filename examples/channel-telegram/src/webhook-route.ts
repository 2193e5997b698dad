import { timingSafeEqual } from 'node:crypto';
import type { DriverRoute } from '@parley/core';

/** The header carrying the `secret_token` given to `setWebhook`. */
const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

function sameSecret(given: string | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `POST /telegram/webhook/:botId`: one Update per request, as Telegram delivers them. The bot id finds
 * the linked instance through the server's index (one keyed read), the secret token proves the
 * request is Telegram's, and the adapter's `ingest` emits the events. A bot linked nowhere answers
 * 200 `{received: 0}` so that Telegram stops redelivering; a wrong secret changes nothing and gets that
 * same answer, so the route does not tell anyone which bots are linked here.
 */
export function webhookRoute(): DriverRoute {
  return {
    method: 'post',
    path: '/webhook/:botId',
    summary: 'Telegram Bot API webhook: one Update, authenticated by X-Telegram-Bot-Api-Secret-Token',
    body: { type: 'object', required: ['update_id'], properties: { update_id: { type: 'integer' } } },
    response: { type: 'object', properties: { received: { type: 'integer' } } },
    // 404: the instance went away between the index lookup and the adapter.
    errors: [404],
    async handler(request) {
      const account = await request.linkedAccount('telegram', request.params.botId ?? '');
      if (!account || !sameSecret(request.headers[SECRET_HEADER], account.link.appSecret)) return { status: 200, body: { received: 0 } };
      // Wherever the instance runs: a cluster node that does not run it forwards the update to the one that does.
      return { status: 200, body: { received: await request.ingest(account.instanceId, request.body) } };
    },
  };
}
