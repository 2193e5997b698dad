/** The structured logger contract (pino-compatible subset) handed to plugins and adapters. */
export interface Logger {
  child(bindings: Record<string, unknown>): Logger;
  trace(obj: unknown, msg?: string): void;
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
  fatal(obj: unknown, msg?: string): void;
}

/**
 * A logger that drops everything: the default of components built without a logger (a driver used
 * on its own, a test registering a plugin).
 */
export const silentLogger: Logger = {
  child: () => silentLogger, trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, fatal: () => {},
};
