import { ParleyApiError } from '@parley/client';

/** The exit statuses of `parley` (documented in the package README). */
export const ExitCode = {
  /** Done. */
  ok: 0,
  /** The server refused or failed the request for another reason (400 validation, 409 conflict, 5xx…), or an unexpected error. */
  failed: 1,
  /** The command line is wrong: unknown command or flag, a missing or malformed argument. */
  usage: 2,
  /** The admin token is missing, wrong, or the address is blocked after too many failures (401, 403, 429). */
  auth: 3,
  /** The instance (or another resource) does not exist (404). */
  notFound: 4,
  /** The server could not be reached (connection refused, DNS, time-out) or did not answer as Parley does. */
  unreachable: 5,
  /**
   * A wait ended without its goal: `connect` not linked before its `--timeout` or the channel stopped
   * trying; `cluster drain --wait` or `instances move --wait` not done before `--timeout`.
   */
  notReached: 6,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** An error the CLI reports as one line on stderr, exiting with {@link code}. */
export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    message: string,
    readonly code: ExitCodeValue,
  ) {
    super(message);
  }
}

/** How a failed command is reported: exit status, message, and for an API error its status, code and details. */
export interface Failure {
  code: ExitCodeValue;
  message: string;
  api?: { status: number; code: string; details?: unknown };
}

/**
 * The details worth printing after an API error's message: `fields` (the per-field messages a form
 * shows beside each field) repeats what the message already says, so a terminal leaves it out; `--json`
 * keeps every member.
 */
function readableDetails(details: unknown): unknown {
  if (!details || typeof details !== 'object' || Array.isArray(details) || !('fields' in details)) return details;
  const { fields: _fields, ...rest } = details as Record<string, unknown>;
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/** The exit status and message of any error a command threw. */
export function describeFailure(err: unknown, url: string): Failure {
  if (err instanceof CliError) return { code: err.code, message: err.message };
  if (err instanceof ParleyApiError) {
    const code = err.status === 401 || err.status === 403 || err.status === 429
      ? ExitCode.auth
      : err.status === 404
        ? ExitCode.notFound
        : err.code === 'http_error'
          ? ExitCode.unreachable
          : ExitCode.failed;
    const hint = err.status === 401 ? ' (give the admin token with --token or PARLEY_ADMIN_TOKEN)' : '';
    const shown = readableDetails(err.details);
    const details = shown === undefined ? '' : ` ${JSON.stringify(shown)}`;
    return {
      code, message: `${err.message} [${err.status} ${err.code}]${details}${hint}`,
      api: { status: err.status, code: err.code, ...(err.details === undefined ? {} : { details: err.details }) },
    };
  }
  if (err instanceof TypeError && /fetch failed/i.test(err.message)) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { code: ExitCode.unreachable, message: `cannot reach the server at ${url}: ${cause?.code ?? cause?.message ?? err.message}` };
  }
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return { code: ExitCode.unreachable, message: `the server at ${url} did not answer in time` };
  }
  return { code: ExitCode.failed, message: err instanceof Error ? err.message : String(err) };
}
