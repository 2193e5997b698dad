import { WhatsAppAPI } from 'whatsapp-api-js';
import assert from 'node:assert/strict';
import type { TestServer } from './test-server.js';

/** The Cloud API version the tests pin (any vN.N answers the same). */
export const CLOUD_VERSION = 'v21.0';

/**
 * An unmodified whatsapp-api-js client whose requests go to Parley instead of graph.facebook.com:
 * its `ponyfill.fetch` rewrites the origin, nothing else. `appSecret` verifies webhook deliveries
 * (the instance's webhook secret, which signs `X-Hub-Signature-256`); `webhookVerifyToken` answers
 * Meta's subscription handshake.
 */
export function cloudClient(t: TestServer, token: string, options: { appSecret?: string; webhookVerifyToken?: string } = {}): WhatsAppAPI {
  const fetchParley: typeof fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    return fetch(url.replace(/^https:\/\/graph\.facebook\.com/, t.url), init);
  };
  return new WhatsAppAPI({ token, appSecret: options.appSecret ?? 'unused', ...(options.webhookVerifyToken ? { webhookVerifyToken: options.webhookVerifyToken } : {}), v: CLOUD_VERSION, ponyfill: { fetch: fetchParley } });
}

/** A raw Cloud API request with a bearer token (Meta's documented curl examples, as fetch calls). */
export async function cloudRequest(t: TestServer, token: string | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The Cloud API's error of an answer: its HTTP status, code, subcode, title and details. */
export function cloudErrorOf(res: { status: number; body: any }): [number, number, number | undefined, string, string] {
  const { error } = res.body;
  assert.match(error.fbtrace_id, /^[A-Za-z0-9_-]{16}$/, JSON.stringify(res.body));
  assert.equal(error.error_data.messaging_product, 'whatsapp');
  return [res.status, error.code, error.error_subcode, error.message, error.error_data.details];
}
