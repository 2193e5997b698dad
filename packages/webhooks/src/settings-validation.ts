import { assertUrlAllowed, ValidationError, type WebhookSettings } from '@parley/core';
import { parseAllowNumber } from './allow-number.js';
import { formatNames } from './routing.js';

/** The URL members of the webhook settings (spec 2.2). */
export const WEBHOOK_URL_FIELDS = [
  'webhookMessage', 'webhookGroup', 'webhookConnection', 'webhookQrCode', 'webhookMessageFromMe', 'webhookHistory',
] as const satisfies readonly (keyof WebhookSettings)[];

/**
 * Checks a settings patch: http(s) URLs only, none pointing to a private network unless allowed,
 * a known format, a valid `allowNumber`. Empty URLs are valid (they fall back to `webhookMessage`).
 * Throws ValidationError naming the first bad field.
 */
export async function validateWebhookSettings(
  patch: Partial<WebhookSettings>,
  knownFormats: ReadonlySet<string>,
  allowPrivate: boolean,
): Promise<void> {
  if (patch.allowWebhook !== undefined && typeof patch.allowWebhook !== 'boolean') throw new ValidationError('allowWebhook must be a boolean');
  if (patch.allowNumber !== undefined) {
    if (typeof patch.allowNumber !== 'string') throw new ValidationError('allowNumber must be a string');
    parseAllowNumber(patch.allowNumber);
  }
  if (patch.webhookFormat !== undefined) {
    const missing = typeof patch.webhookFormat === 'string' ? formatNames(patch.webhookFormat).filter((name) => !knownFormats.has(name)) : ['?'];
    if (missing.length > 0) {
      const choices = [...knownFormats, ...(knownFormats.has('native') && knownFormats.has('meta') ? ['both'] : [])];
      throw new ValidationError(`webhookFormat must be one of ${choices.join(', ')}`);
    }
  }
  for (const field of WEBHOOK_URL_FIELDS) {
    const value = patch[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new ValidationError(`${field} must be a string`);
    if (value.trim() === '') continue;
    await assertUrlAllowed(value.trim(), { field, allowPrivate });
  }
}
