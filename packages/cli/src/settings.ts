import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ParleyClient, type FetchLike } from '@parley/client';
import { CliError, ExitCode } from './exit-codes.js';

/** The URL used when neither `--url` nor `PARLEY_URL` is given. */
export const DEFAULT_URL = 'http://localhost:8080';

/** How long one HTTP request may take before the server counts as unreachable, unless `--request-timeout` says otherwise. */
export const REQUEST_TIMEOUT_S = 30;

/** The options every command takes (commander's `optsWithGlobals()`). */
export interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
  /** Seconds. */
  requestTimeout?: number;
}

/** Where the admin token came from (`none`: instance commands then take the instance key). */
export type TokenSource = 'flag' | 'env' | 'file' | 'none';

/** What a command runs with: the server, the typed client, the output mode. */
export interface CliContext {
  readonly url: string;
  readonly client: ParleyClient;
  readonly tokenSource: TokenSource;
  readonly json: boolean;
}

function isLoopback(url: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) || url.hostname.endsWith('.localhost');
}

/**
 * The admin token: `--token`, else `PARLEY_ADMIN_TOKEN`, else — only for a server on this machine (a
 * loopback URL), so that the local token is never sent elsewhere — the file the server generated,
 * `$PARLEY_DATA_DIR/admin-token` (default `./data/admin-token`, relative to the working directory).
 */
function adminToken(options: GlobalOptions, url: URL, env: NodeJS.ProcessEnv): { token?: string; source: TokenSource } {
  if (options.token !== undefined) return { token: options.token, source: 'flag' };
  if (env.PARLEY_ADMIN_TOKEN) return { token: env.PARLEY_ADMIN_TOKEN, source: 'env' };
  const file = join(resolve(env.PARLEY_DATA_DIR || 'data'), 'admin-token');
  if (isLoopback(url) && existsSync(file)) {
    try {
      const token = readFileSync(file, 'utf8').trim();
      if (token) return { token, source: 'file' };
    } catch (err) {
      throw new CliError(`cannot read the admin token file ${file}: ${(err as Error).message}`, ExitCode.auth);
    }
  }
  return { source: 'none' };
}

/** Parses `--url`/`PARLEY_URL` (usage error when it is not an http(s) URL). */
export function serverUrl(options: GlobalOptions, env: NodeJS.ProcessEnv): URL {
  const raw = options.url ?? (env.PARLEY_URL || DEFAULT_URL);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`--url must be an http(s) URL, got ${JSON.stringify(raw)}`, ExitCode.usage);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`--url must be an http(s) URL, got ${JSON.stringify(raw)}`, ExitCode.usage);
  return url;
}

/** Builds the context of a command from its options and the environment (flags win over variables). */
export function cliContext(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): CliContext {
  const url = serverUrl(options, env);
  const { token, source } = adminToken(options, url, env);
  // Every request is bounded: a server that accepts the connection and never answers counts as unreachable.
  const timeoutMs = (options.requestTimeout ?? REQUEST_TIMEOUT_S) * 1000;
  const fetch: FetchLike = (input, init) => globalThis.fetch(input, { ...init, signal: init.signal ?? AbortSignal.timeout(timeoutMs) });
  const baseUrl = url.href.replace(/\/+$/, '');
  return { url: baseUrl, client: new ParleyClient({ baseUrl, adminToken: token, fetch }), tokenSource: source, json: options.json === true };
}

/** Requires an admin token for an admin-only command (auth error otherwise). */
export function requireAdmin(ctx: CliContext, what: string): void {
  if (ctx.tokenSource === 'none') {
    throw new CliError(`${what} needs the admin token: give it with --token or PARLEY_ADMIN_TOKEN`, ExitCode.auth);
  }
}
