import { UPLOAD_TIMEOUT } from '@whiskeysockets/baileys';

let installed = false;

/**
 * Baileys 7.0.0-rc14 races each pre-key upload against a `setTimeout(…, UPLOAD_TIMEOUT)` (30 s,
 * Socket/socket.js) that it never clears, so a process whose clients uploaded pre-keys stays alive up to
 * 30 s after its last socket ended — every test file using the simulator would idle that long. From the
 * first call on, such timers (that delay, set from Baileys' socket module) no longer hold the process
 * open; they still fire while it runs. Other timers are left as they are. Idempotent.
 */
export function releaseBaileysUploadTimers(): void {
  if (installed) return;
  installed = true;
  const original = globalThis.setTimeout;
  const patched = ((callback: (...args: unknown[]) => void, delay?: number, ...args: unknown[]) => {
    const timer = original(callback, delay, ...args);
    if (delay === UPLOAD_TIMEOUT && new Error().stack?.includes('@whiskeysockets/baileys/lib/Socket/socket.js')) timer.unref();
    return timer;
  }) as typeof setTimeout;
  globalThis.setTimeout = Object.assign(patched, original);
}
