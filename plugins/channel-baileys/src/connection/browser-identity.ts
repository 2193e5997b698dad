import { Browsers, type WABrowserDescription } from '@whiskeysockets/baileys';
import type { ResolvedBaileysOptions } from '../options.js';

/** What a socket is started for: a QR code (or a stored session's login), or a pairing code. */
export type LinkMethod = 'qr' | 'pairing_code';

/**
 * The identity of a socket that asks for a pairing code. WhatsApp checks the
 * `companion_platform_display` Baileys sends with `link_code_companion_reg` — `<browser[1]>
 * (<browser[0]>)` (Socket/socket.js `requestPairingCode`) — and answers 400 bad-request to a name
 * that is not a real OS, or to a desktop platform, while `requestPairingCode` still returns a code
 * that can never link (Baileys PR #2769: `Chrome (Acme)` refused, `Chrome (Windows)` accepted;
 * PR #2409: desktop platform id 7 refused; issue #1167). QR linking takes any name.
 */
const PAIRING_CODE_IDENTITY: WABrowserDescription = Browsers.windows('Chrome');

/**
 * The browser the instance announces as a linked device. A socket for a pairing code is
 * `Chrome (Windows)` whatever the options say ({@link PAIRING_CODE_IDENTITY}), so `browserName` and
 * `syncFullHistory` apply to QR linking only. WhatsApp sends the full history only to a desktop
 * client: Baileys asks for it (`requireFullSync`) on every identity, but marks the client as the
 * desktop app (`webSubPlatform` DARWIN or WIN32) only when the browser is `Mac OS` or `Windows` with
 * `Desktop` as its name (Utils/validate-connection.js, `getWebInfo`). Any other identity gets the
 * recent messages only, so `syncFullHistory` switches to `Browsers.macOS('Desktop')` and the phone
 * lists the device as "Mac OS" instead of `browserName`.
 */
export function browserIdentity(options: Pick<ResolvedBaileysOptions, 'browserName' | 'syncFullHistory'>, method: LinkMethod): WABrowserDescription {
  if (method === 'pairing_code') return PAIRING_CODE_IDENTITY;
  if (options.syncFullHistory) return Browsers.macOS('Desktop');
  return [options.browserName, 'Chrome', '22.04.4'];
}
