import { Browsers, type WABrowserDescription } from '@whiskeysockets/baileys';
import type { ResolvedBaileysOptions } from '../options.js';

/**
 * The browser the instance announces as a linked device. WhatsApp sends the full history only to a
 * desktop client: Baileys asks for it (`requireFullSync`) on every identity, but marks the client as
 * the desktop app (`webSubPlatform` DARWIN or WIN32) only when the browser is `Mac OS` or `Windows`
 * with `Desktop` as its name (Utils/validate-connection.js, `getWebInfo`). Any other identity gets
 * the recent messages only, so `syncFullHistory` switches to `Browsers.macOS('Desktop')` and the
 * phone lists the device as "Mac OS" instead of `browserName`.
 */
export function browserIdentity(options: Pick<ResolvedBaileysOptions, 'browserName' | 'syncFullHistory'>): WABrowserDescription {
  if (options.syncFullHistory) return Browsers.macOS('Desktop');
  return [options.browserName, 'Chrome', '22.04.4'];
}
