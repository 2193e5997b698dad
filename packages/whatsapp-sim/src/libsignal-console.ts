/** Where libsignal's console messages go instead of the console: the message text only, never its objects. */
export type LibsignalLogHandler = (level: 'debug' | 'warn', message: string) => void;

/**
 * The messages libsignal 6 prints with `console.*` (src/session_record.js, session_builder.js,
 * session_cipher.js, curve.js, queue_job.js). Several pass the whole session as a second argument —
 * ephemeral private keys, root and chain keys — which would land in the logs of any process running
 * Signal sessions (a Parley server, the simulator).
 */
const LIBSIGNAL_MESSAGE = new RegExp([
  '^Closing session', '^Opening session', '^Removing old closed session', '^Migrating session to', '^Session already (?:closed|open)',
  '^Closing (?:stale )?open session', '^Decrypted message with closed session', '^Failed to decrypt message with any known session',
  '^Session error:', '^V1 session storage migration error', '^Unhandled bucket type', '^WARNING: Expected pubkey of length 33',
].join('|'));

type ConsoleMethod = 'log' | 'info' | 'warn' | 'error';
const METHODS: ConsoleMethod[] = ['log', 'info', 'warn', 'error'];
const handlers = new Set<LibsignalLogHandler>();
let originals: Partial<Record<ConsoleMethod, (...args: unknown[]) => void>> | undefined;

/**
 * Routes libsignal's console messages to `handler` (the message text; the session objects are dropped),
 * for as long as a handler is installed; every other console call is left as it is. Several handlers
 * (a Parley server and an in-process simulator) may be installed at once: each gets every message.
 * Returns the uninstall function; the console is restored when the last handler goes.
 */
export function routeLibsignalConsole(handler: LibsignalLogHandler): () => void {
  handlers.add(handler);
  if (!originals) {
    originals = {};
    for (const method of METHODS) {
      const original = console[method].bind(console);
      originals[method] = original;
      console[method] = (...args: unknown[]) => {
        const [first] = args;
        if (typeof first !== 'string' || !LIBSIGNAL_MESSAGE.test(first)) return original(...args);
        const level = method === 'error' ? 'warn' : 'debug';
        for (const h of handlers) h(level, first);
      };
    }
  }
  return () => {
    handlers.delete(handler);
    if (handlers.size > 0 || !originals) return;
    for (const method of METHODS) console[method] = originals[method]!;
    originals = undefined;
  };
}
