import { pino, type Logger as PinoLogger } from 'pino';
import pretty from 'pino-pretty';

/**
 * Paths redacted from every log line. Instance keys, admin tokens, webhook secrets, link tokens and
 * database credentials never reach the logs.
 */
export const REDACTED_PATHS = [
  'key', '*.key', 'instanceKey', '*.instanceKey', 'token', '*.token', 'adminToken', 'accessToken', '*.accessToken',
  'appSecret', '*.appSecret', 'verifyToken', '*.verifyToken', 'webhookSecret', '*.webhookSecret', 'secret', '*.secret',
  'uri', '*.uri', 'proxy', '*.proxy', 'password', '*.password',
  'req.headers.authorization', 'req.headers.cookie', 'headers.authorization',
];

/** How log lines are written: JSON, or pretty-printed for a person; `auto` picks by the output. */
export type LogFormat = 'auto' | 'json' | 'pretty';

/**
 * The format `auto` stands for: pretty on a terminal (a person reads it), JSON otherwise (a pipe or a
 * file usually feeds a log collector, which wants one JSON object a line).
 */
export function resolveLogFormat(format: LogFormat, isTTY: boolean | undefined): 'json' | 'pretty' {
  if (format !== 'auto') return format;
  return isTTY ? 'pretty' : 'json';
}

/** Options of the root logger. */
export interface LoggerOptions {
  level?: string;
  /** `auto` (default): pretty when the destination (stdout) is a terminal, JSON otherwise. */
  format?: LogFormat;
  /** Write target; defaults to stdout. Tests pass a stream to inspect lines. */
  destination?: NodeJS.WritableStream;
}

/**
 * Creates the root pino logger with Parley's redaction rules. Pretty lines come from pino-pretty in
 * this thread, written synchronously (a line logged just before the process exits is not lost),
 * coloured unless `NO_COLOR` is set or the output is not a terminal.
 */
export function createLogger(options: LoggerOptions = {}): PinoLogger {
  const destination = options.destination ?? process.stdout;
  const isTTY = (destination as Partial<NodeJS.WriteStream>).isTTY === true;
  const format = resolveLogFormat(options.format ?? 'auto', isTTY);
  const stream = format === 'json' ? destination : pretty({
    destination, sync: true, colorize: isTTY && !process.env.NO_COLOR,
    translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service',
  });
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      base: { service: 'parley' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    stream,
  );
}

/**
 * Rewrites a request path so an instance key in its first segment never reaches a log line:
 * `/AbC…xyz/message/text` → `/:key/message/text`.
 */
export function redactPath(path: string, isKnownPrefix: (segment: string) => boolean): string {
  const match = /^\/([^/?]+)(.*)$/.exec(path);
  if (!match) return path;
  return isKnownPrefix(match[1]!) ? path : `/:key${match[2]}`;
}

/**
 * The path of a request no route matched, for log lines: under a known prefix a key can sit in a
 * later segment (`/admin/instances/<key>/…`, `/sandbox/<key>/…`), so only the prefix is kept.
 */
export function unmatchedPath(path: string, isKnownPrefix: (segment: string) => boolean): string {
  const match = /^\/([^/?]+)(.*)$/.exec(path);
  if (!match) return path;
  if (!isKnownPrefix(match[1]!)) return match[2] ? '/:key/…' : '/:key';
  return match[2] ? `/${match[1]}/…` : path;
}
