import { Agent as HttpAgent, type AgentOptions, type ClientRequestArgs } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions, type RequestOptions as HttpsRequestOptions } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import { isPrivateAddress } from './address-class.js';
import { guardedLookup, PRIVATE_URLS_HINT } from './net-guard.js';

type ConnectCallback = (err: Error | null, stream: Duplex) => void;

/**
 * The error for dialling `host` when it is an IP literal that is not public (code `EPRIVATEADDR`,
 * like {@link guardedLookup}); undefined for public literals and host names, which the lookup checks.
 * Node's `net.connect` skips `lookup` for literals, so this is the connect-time check for them.
 */
export function privateLiteralError(host: string | null | undefined): NodeJS.ErrnoException | undefined {
  const bare = (host ?? '').replace(/^\[|\]$/g, '');
  if (isIP(bare) === 0 || !isPrivateAddress(bare)) return undefined;
  return Object.assign(new Error(`${bare} is a private address (${PRIVATE_URLS_HINT})`), { code: 'EPRIVATEADDR' });
}

/** The address being dialled, checked right before the socket is opened; the callback carries the refusal. */
function refused(allowPrivate: boolean, options: ClientRequestArgs, callback: ConnectCallback | undefined): boolean {
  const error = allowPrivate ? undefined : privateLiteralError(options.host ?? options.hostname);
  if (!error) return false;
  // http.Agent turns a callback error into the request's 'error' event.
  callback?.(error, undefined as never);
  return true;
}

class GuardedHttpAgent extends HttpAgent {
  constructor(private readonly allowPrivate: boolean, options: AgentOptions) {
    super({ ...options, lookup: guardedLookup(allowPrivate) as unknown as LookupFunction });
  }

  override createConnection(options: ClientRequestArgs, callback?: ConnectCallback): Duplex | null | undefined {
    return refused(this.allowPrivate, options, callback) ? undefined : super.createConnection(options, callback);
  }
}

class GuardedHttpsAgent extends HttpsAgent {
  constructor(private readonly allowPrivate: boolean, options: HttpsAgentOptions) {
    super({ ...options, lookup: guardedLookup(allowPrivate) as unknown as LookupFunction });
  }

  override createConnection(options: HttpsRequestOptions, callback?: ConnectCallback): Duplex | null | undefined {
    return refused(this.allowPrivate, options, callback) ? undefined : super.createConnection(options, callback);
  }
}

/** The HTTP and HTTPS agents of {@link guardedAgents}. */
export interface GuardedAgents {
  http: HttpAgent;
  https: HttpsAgent;
}

/**
 * HTTP and HTTPS agents that refuse, at connect time, every address that is not public (unless
 * `allowPrivate`): host names through {@link guardedLookup} (every address they resolve to, so DNS
 * rebinding is caught) and IP literals (which Node dials without a lookup) right before the socket
 * opens. A redirect is a new request through the same agent, so its target is checked as well.
 * Refusals fail the request with code `EPRIVATEADDR`.
 */
export function guardedAgents(allowPrivate: boolean, options: AgentOptions = {}): GuardedAgents {
  return { http: new GuardedHttpAgent(allowPrivate, options), https: new GuardedHttpsAgent(allowPrivate, options) };
}
