import { UpstreamError, ValidationError, type SocialLink } from '@parley/core';
import { BotApiError, type BotApi } from './bot-api.js';
import type { TgUser } from './telegram-types.js';

/** Telegram's syntax of a webhook `secret_token` (setWebhook). */
const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

/** The webhook URL Telegram posts a bot's updates to: the bot id in the path tells which link they belong to. */
export function webhookUrl(publicUrl: string, botId: string): string {
  return `${publicUrl}/telegram/webhook/${botId}`;
}

/**
 * Links a bot: `getMe` checks the token and that it is the bot of `accountId`, then `setWebhook`
 * points the bot's updates at this server with `appSecret` as the secret token Telegram sends back
 * in `X-Telegram-Bot-Api-Secret-Token`. The generic link body's `verifyToken` has no Telegram
 * counterpart (there is no subscription handshake) and is stored as given.
 */
export async function linkBot(api: BotApi, publicUrl: string, input: Record<string, unknown>, now: number): Promise<SocialLink> {
  const token = String(input.accessToken);
  const accountId = String(input.accountId);
  const secret = String(input.appSecret);
  if (!SECRET_TOKEN.test(secret)) {
    throw new ValidationError('appSecret must be 1 to 256 characters A-Z, a-z, 0-9, _ or - (Telegram\'s secret_token)', { field: 'appSecret' });
  }
  let bot: TgUser;
  try {
    bot = await api.call<TgUser>(token, 'getMe');
    if (String(bot.id) !== accountId) throw new ValidationError(`accountId ${accountId} is not the bot of this token (${bot.id})`, { field: 'accountId' });
    await api.call<boolean>(token, 'setWebhook', {
      url: webhookUrl(publicUrl, accountId), secret_token: secret, allowed_updates: ['message', 'edited_message'],
    });
  } catch (err) {
    if (!(err instanceof BotApiError)) throw err;
    if (err.code === 401 || err.code === 404) throw new ValidationError(`accessToken was refused by the Telegram Bot API: ${err.description}`, { field: 'accessToken' });
    throw new UpstreamError(err.message, { retryable: err.code === 429 || err.code >= 500, upstreamCode: err.code });
  }
  return {
    channel: 'telegram', accountId, accessToken: token, appSecret: secret, verifyToken: String(input.verifyToken),
    ...(bot.username ? { username: bot.username } : {}), linkedAt: now,
  };
}
