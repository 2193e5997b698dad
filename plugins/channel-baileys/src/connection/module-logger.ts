import baileysModuleLogger from '@whiskeysockets/baileys/lib/Utils/logger.js';

/**
 * Baileys keeps a process-wide pino logger of its own (`lib/Utils/logger.js`, level info, writing to
 * standard output) beside the socket's configured one, and its community calls log whole group
 * results through it at info: raw JSON lines outside Parley's logger, on every community created or
 * read. Only its warnings and errors are let through.
 */
export function quietBaileysModuleLogger(): void {
  baileysModuleLogger.level = 'warn';
}
