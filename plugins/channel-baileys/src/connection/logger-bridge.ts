import type { Logger } from '@parley/core';
import type { SocketConfig } from '@whiskeysockets/baileys';

type ILogger = SocketConfig['logger'];

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
type Level = (typeof LEVELS)[number];

/**
 * Adapts the Parley logger to Baileys' logger. Lines below `level` are dropped here: Baileys logs
 * whole binary nodes at trace level, and formatting them costs more than the message itself.
 */
export function baileysLogger(logger: Logger, level: Level): ILogger {
  const threshold = LEVELS.indexOf(level);
  const enabled = (l: Level) => LEVELS.indexOf(l) >= threshold && threshold < LEVELS.indexOf('silent');
  return {
    level,
    child: (bindings) => baileysLogger(logger.child(bindings), level),
    trace: (obj, msg) => { if (enabled('trace')) logger.trace(obj, msg); },
    debug: (obj, msg) => { if (enabled('debug')) logger.debug(obj, msg); },
    info: (obj, msg) => { if (enabled('info')) logger.info(obj, msg); },
    warn: (obj, msg) => { if (enabled('warn')) logger.warn(obj, msg); },
    error: (obj, msg) => { if (enabled('error')) logger.error(obj, msg); },
  };
}
