import { UpstreamError, ValidationError } from '@parley/core';

/** Every Bot API answer (core.telegram.org/bots/api "Making requests"): `result` when `ok`, the error otherwise. */
export interface BotApiAnswer<T> {
  ok: boolean;
  result?: T;
  error_code?: number;
  description?: string;
  /** `retry_after` (seconds) on 429, `migrate_to_chat_id` when a group became a supergroup. */
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

/** A refusal of the Bot API, with its documented `error_code` and `description`. */
export class BotApiError extends Error {
  constructor(readonly method: string, readonly code: number, readonly description: string, readonly retryAfter?: number) {
    super(`Telegram Bot API ${method}: ${description}`);
  }
}

/**
 * A small Bot API client: `POST {baseUrl}/bot<token>/<method>` with a JSON body, or multipart when a
 * file is uploaded (Telegram's two ways of passing parameters besides the query string).
 */
export class BotApi {
  constructor(private readonly baseUrl: string, private readonly timeoutMs: number) {}

  /** Calls a method; answers `result` or throws {@link BotApiError} (refusals) / UpstreamError (network). */
  async call<T>(token: string, method: string, params: Record<string, unknown> | FormData = {}): Promise<T> {
    const body = params instanceof FormData ? params : JSON.stringify(params);
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}/bot${token}/${method}`, {
        method: 'POST', body, signal: AbortSignal.timeout(this.timeoutMs),
        ...(params instanceof FormData ? {} : { headers: { 'content-type': 'application/json' } }),
      });
    } catch (err) {
      throw new UpstreamError(`Telegram Bot API ${method} could not be reached: ${(err as Error).message}`, { retryable: true });
    }
    let answer: BotApiAnswer<T>;
    try {
      answer = (await response.json()) as BotApiAnswer<T>;
    } catch {
      throw new UpstreamError(`Telegram Bot API ${method} answered HTTP ${response.status} without a JSON body`, { retryable: response.status >= 500 });
    }
    if (answer.ok && answer.result !== undefined) return answer.result;
    throw new BotApiError(method, answer.error_code ?? response.status, answer.description ?? `HTTP ${response.status}`, answer.parameters?.retry_after);
  }

  /** The URL of a file `getFile` answered (`{baseUrl}/file/bot<token>/<file_path>`). */
  fileUrl(token: string, filePath: string): string {
    return `${this.baseUrl}/file/bot${token}/${filePath}`;
  }
}

/**
 * The Parley error of a refused send: 400 from Telegram is the caller's (unknown chat, empty text),
 * 429 is retryable after `retry_after`, anything else (revoked token, bot blocked) is upstream's.
 */
export function sendError(err: unknown): Error {
  if (!(err instanceof BotApiError)) return err as Error;
  if (err.code === 400) return new ValidationError(`body.to: ${err.message}`, { field: 'body.to', upstreamCode: 400 });
  if (err.code === 429) {
    return new UpstreamError(`${err.message} (retry after ${err.retryAfter ?? '?'} s)`, { retryable: true, upstreamCode: 429, retryAfter: err.retryAfter });
  }
  return new UpstreamError(err.message, { retryable: err.code >= 500, upstreamCode: err.code });
}
