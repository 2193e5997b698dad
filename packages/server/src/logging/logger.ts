import { pino, type Logger as PinoLogger } from 'pino';

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

/** Options of the root logger. */
export interface LoggerOptions {
  level?: string;
  /** Write target; defaults to stdout. Tests pass a stream to inspect lines. */
  destination?: NodeJS.WritableStream;
}

/** Creates the root pino logger with Parley's redaction rules. */
export function createLogger(options: LoggerOptions = {}): PinoLogger {
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      base: { service: 'parley' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? process.stdout,
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
