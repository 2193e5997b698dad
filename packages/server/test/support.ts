import { Writable } from 'node:stream';
import type { Logger } from '@parley/core';
import { createLogger } from '../src/logging/logger.js';

/** A pino logger with Parley's redaction rules whose lines are kept in `lines`. */
export function captureLogger(level = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  return { logger: createLogger({ level, destination }) as unknown as Logger, lines };
}

/** A logger that drops everything. */
export const silentLogger = (): Logger => createLogger({ level: 'silent' }) as unknown as Logger;
