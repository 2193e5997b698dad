import { NotFoundError, UpstreamError } from '@parley/core';

/** What the network answers a connect: the account as it knows it. */
export interface SignalAccount {
  uuid: string;
  name?: string;
}

/** One send as the network takes it: to one account or group, optionally quoting a message by its author and timestamp. */
export interface SignalSend {
  account: string;
  recipient: string;
  message: string;
  quote?: { author: string; timestamp: number };
}

/**
 * The HTTP API of the Signal-like network this example talks to (shaped after signal-cli's REST
 * wrapper: an account sends by its UUID; the network answers a send with the message's timestamp,
 * which with its author identifies a message). Failures become Parley errors: an unknown account or
 * recipient is a 404, anything else from the network a retryable 502.
 */
export class SignalNetworkApi {
  constructor(private readonly baseUrl: string, private readonly timeoutMs: number) {}

  /** Registers this device's session for `account`; 404 when the network knows no such account. */
  connect(account: string): Promise<SignalAccount> {
    return this.call<SignalAccount>('POST', `/v1/accounts/${encodeURIComponent(account)}/connect`);
  }

  /** Sends a text; answers the message's timestamp (Unix milliseconds). */
  async send(send: SignalSend): Promise<number> {
    return (await this.call<{ timestamp: number }>('POST', '/v2/send', send)).timestamp;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method, signal: AbortSignal.timeout(this.timeoutMs),
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
    } catch (err) {
      throw new UpstreamError(`the Signal network did not answer: ${(err as Error).message}`, { retryable: true });
    }
    const answer = (await response.json().catch(() => ({}))) as { error?: string };
    if (response.status === 404) throw new NotFoundError(answer.error ?? 'Signal recipient', 'recipient_not_found');
    if (!response.ok) throw new UpstreamError(`the Signal network answered HTTP ${response.status}: ${answer.error ?? ''}`, { retryable: response.status >= 500, upstreamCode: response.status });
    return answer as T;
  }
}
