import { OutsideWindowError, UpstreamError } from '@parley/core';

/** How a Graph API failure is treated. */
export type GraphErrorKind = 'rate_limit' | 'token' | 'permission' | 'app_secret' | 'network' | 'other';

/** What Meta said, kept for callers that map errors further (the link flow names the field). */
export interface GraphErrorInfo {
  kind: GraphErrorKind;
  /** HTTP status of the answer; 0 when there was no answer. */
  httpStatus: number;
  code?: number;
  subcode?: number;
  type?: string;
  message: string;
  fbtraceId?: string;
  /** Meta's own hint that retrying the same call may succeed. */
  transient?: boolean;
}

/** The `error` member of a Graph API error answer. */
interface GraphErrorBody {
  message?: unknown;
  type?: unknown;
  code?: unknown;
  error_subcode?: unknown;
  fbtrace_id?: unknown;
  is_transient?: unknown;
}

/** Application, user and page-level throttling, plus the Messenger/Instagram business-use-case limits. */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613, 80001, 80002, 80003, 80004, 80005, 80006, 80008, 80009, 80014]);
/**
 * Expired, revoked or malformed tokens (`OAuthException` 190 and 102; 2500 = no active token). Graph
 * types many unrelated errors (`#100` invalid parameter, `#2` service unavailable) `OAuthException`
 * too, so the type alone only counts when no code says otherwise.
 */
const TOKEN_CODES = new Set([190, 102, 2500]);
/** Meta's own transient failures: unknown error and service unavailable. */
const TRANSIENT_CODES = new Set([1, 2]);
/**
 * Code 10 subcodes of a message refused because the user's messaging window is closed: Messenger's
 * 2018278 and Instagram's 2534022, both "This message is sent outside of allowed window" (Meta,
 * Messenger Platform "Common Error Codes"). Without them code 10 is a permission error.
 */
const OUTSIDE_WINDOW_SUBCODES = new Set([2018278, 2534022]);

function isPermissionCode(code: number | undefined): boolean {
  return code === 10 || (code !== undefined && code >= 200 && code <= 299);
}

/** Sorts a Graph failure: rate limits first (code 4 is also an `OAuthException`), then tokens. */
export function classifyGraphError(httpStatus: number, code: number | undefined, type: string | undefined, message: string): GraphErrorKind {
  if (httpStatus === 429 || (code !== undefined && RATE_LIMIT_CODES.has(code))) return 'rate_limit';
  if (/appsecret_proof/i.test(message)) return 'app_secret';
  if (isPermissionCode(code)) return 'permission';
  if ((code !== undefined && TOKEN_CODES.has(code)) || (code === undefined && type === 'OAuthException')) return 'token';
  return 'other';
}

/**
 * A failed Graph API call in the core error model: an {@link UpstreamError} (HTTP 502) whose details
 * carry `retryable`, `upstreamCode` and Meta's error data. Never carries the access token.
 */
export class GraphApiError extends UpstreamError {
  constructor(message: string, readonly graph: GraphErrorInfo) {
    super(message, {
      retryable: isRetryable(graph),
      upstreamCode: graph.code ?? graph.httpStatus,
      kind: graph.kind,
      httpStatus: graph.httpStatus,
      ...(graph.subcode !== undefined ? { subcode: graph.subcode } : {}),
      ...(graph.type !== undefined ? { type: graph.type } : {}),
      ...(graph.fbtraceId !== undefined ? { fbtraceId: graph.fbtraceId } : {}),
    });
  }
}

function isRetryable(info: GraphErrorInfo): boolean {
  if (info.kind === 'rate_limit' || info.kind === 'network') return true;
  if (info.kind !== 'other') return false;
  return info.transient === true || info.httpStatus >= 500 || (info.code !== undefined && TRANSIENT_CODES.has(info.code));
}

/**
 * Builds the error of a Graph answer that carries `{error: {...}}` or a non-2xx status: an
 * {@link OutsideWindowError} when Meta refused a message outside the user's messaging window, else a
 * {@link GraphApiError}.
 */
export function graphErrorFromAnswer(label: string, httpStatus: number, body: unknown): GraphApiError | OutsideWindowError {
  const error = (body && typeof body === 'object' ? (body as { error?: GraphErrorBody }).error : undefined) ?? {};
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : `HTTP ${httpStatus}`;
  const code = typeof error.code === 'number' ? error.code : undefined;
  const type = typeof error.type === 'string' ? error.type : undefined;
  const info: GraphErrorInfo = {
    kind: classifyGraphError(httpStatus, code, type, message),
    httpStatus,
    message,
    ...(code !== undefined ? { code } : {}),
    ...(typeof error.error_subcode === 'number' ? { subcode: error.error_subcode } : {}),
    ...(type !== undefined ? { type } : {}),
    ...(typeof error.fbtrace_id === 'string' ? { fbtraceId: error.fbtrace_id } : {}),
    ...(error.is_transient === true ? { transient: true } : {}),
  };
  if (code === 10 && info.subcode !== undefined && OUTSIDE_WINDOW_SUBCODES.has(info.subcode)) {
    return new OutsideWindowError(
      `${label} does not deliver messages to this user now: more than 24 hours have passed since the user last wrote `
      + `(${code}/${info.subcode}: ${message}); the conversation opens again when the user writes`,
      { upstreamCode: code, subcode: info.subcode, ...(info.fbtraceId !== undefined ? { fbtraceId: info.fbtraceId } : {}) },
    );
  }
  return new GraphApiError(describe(label, info), info);
}

/** Builds the error of a call that got no answer (connection failure or time-out). */
export function graphNetworkError(label: string, message: string): GraphApiError {
  const info: GraphErrorInfo = { kind: 'network', httpStatus: 0, message };
  return new GraphApiError(`${label} Graph API unreachable: ${message}`, info);
}

function describe(label: string, info: GraphErrorInfo): string {
  const code = info.code !== undefined ? `${info.type ? `${info.type} ` : ''}${info.code}` : `HTTP ${info.httpStatus}`;
  switch (info.kind) {
    case 'rate_limit':
      return `${label} Graph API rate limit reached (${code}): ${info.message}; retry later`;
    case 'token':
      return `${label} access token is invalid or expired (${code}): ${info.message}; link the account again with a valid token`;
    case 'permission':
      return `${label} access token lacks a permission this call needs (${code}): ${info.message}`;
    case 'app_secret':
      return `${label} app secret does not belong to the access token's app (${code}): ${info.message}`;
    default:
      return `${label} Graph API error (${code}): ${info.message}`;
  }
}
