/** Timers at least this long set by Baileys are released (its query time-out is 60 s, its pre-key upload one 30 s). */
const LONG_TIMER_MS = 30_000;

let installed = false;

/**
 * Baileys 7.0.0-rc14 leaves long timers behind after its sockets end: the 30 s time-out it races each pre-key
 * upload against and never clears (Socket/socket.js), and the 60 s time-out of a query sent as the socket
 * closed (`waitForMessage` in Socket/socket.js is never settled when `sendNode` fails). A process whose
 * clients ended keeps running until they fire — every test file using the simulator would idle that long.
 * From the first call on, timers of 30 s or more set from Baileys' modules no longer hold the process open;
 * they still fire while it runs. Other timers are left as they are. Idempotent.
 */
export function releaseBaileysTimers(): void {
  if (installed) return;
  installed = true;
  const original = globalThis.setTimeout;
  const patched = ((callback: (...args: unknown[]) => void, delay?: number, ...args: unknown[]) => {
    const timer = original(callback, delay, ...args);
    if ((delay ?? 0) >= LONG_TIMER_MS && new Error().stack?.includes('@whiskeysockets/baileys/lib/')) timer.unref();
    return timer;
  }) as typeof setTimeout;
  globalThis.setTimeout = Object.assign(patched, original);
}
