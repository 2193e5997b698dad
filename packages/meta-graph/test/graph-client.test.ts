import { describe, it } from 'node:test';
import { OutsideWindowError } from '@parley/core';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GraphApiError, GraphClient, appSecretProof, classifyGraphError } from '../src/index.js';
import { useMockGraph } from '../src/testing/index.js';

const credentials = { accessToken: 'EAAGtoken-abcdef-0123456789', appSecret: 'app-secret-for-proof' };

describe('GraphClient', () => {
  const graph = useMockGraph();

  const client = (overrides: { baseUrl?: string; timeoutMs?: number } = {}) =>
    new GraphClient({ baseUrl: overrides.baseUrl ?? graph.url, version: 'v21.0', timeoutMs: overrides.timeoutMs ?? 5000, label: 'Instagram' });

  it('GETs the versioned path with a bearer token, appsecret_proof and the query; no token in the URL', async () => {
    graph.on('GET', '/v21.0/17841405822304914', { status: 200, body: { id: '17841405822304914' } });
    assert.deepStrictEqual(await client().get('17841405822304914', credentials, { fields: 'id,username' }), { id: '17841405822304914' });
    const [request] = graph.requests;
    assert.deepStrictEqual(request!.query, { fields: 'id,username', appsecret_proof: appSecretProof(credentials.accessToken, credentials.appSecret) });
    assert.equal(request!.headers.authorization, 'Bearer EAAGtoken-abcdef-0123456789');
    assert.equal(request!.headers.accept, 'application/json');
  });

  it('keeps a path prefix of the base URL and omits appsecret_proof without an app secret', async () => {
    graph.on('POST', '/proxy/v21.0/me/messages', { status: 200, body: { message_id: 'm_1' } });
    assert.deepStrictEqual(await client({ baseUrl: `${graph.url}/proxy/` }).postJson('/me/messages', { accessToken: 't' }, { a: 1 }), { message_id: 'm_1' });
    assert.deepStrictEqual(graph.requests[0]!.query, {});
    assert.deepStrictEqual(graph.requests[0]!.json, { a: 1 });
  });

  it('computes appsecret_proof as HMAC-SHA256 of the token keyed by the app secret', () => {
    assert.equal(appSecretProof('token', 'secret'), 'e941110e3d2bfe82621f0e3e1434730d7305d106c5f68c87165d0b27a4611a4a');
  });

  const cases: [string, number, unknown, { kind: string; retryable: boolean; upstreamCode: number }][] = [
    ['expired token', 400, { error: { message: 'Session has expired', type: 'OAuthException', code: 190, error_subcode: 463 } }, { kind: 'token', retryable: false, upstreamCode: 190 }],
    ['API session', 400, { error: { message: 'API Session', type: 'OAuthException', code: 102 } }, { kind: 'token', retryable: false, upstreamCode: 102 }],
    ['OAuthException without a code', 401, { error: { message: 'Malformed access token', type: 'OAuthException' } }, { kind: 'token', retryable: false, upstreamCode: 401 }],
    ['no active token', 400, { error: { message: 'An active access token must be used to query information about the current user.', type: 'OAuthException', code: 2500 } }, { kind: 'token', retryable: false, upstreamCode: 2500 }],
    ['app rate limit', 400, { error: { message: '(#4) Application request limit reached', type: 'OAuthException', code: 4 } }, { kind: 'rate_limit', retryable: true, upstreamCode: 4 }],
    ['user rate limit', 400, { error: { message: '(#17) User request limit reached', type: 'OAuthException', code: 17 } }, { kind: 'rate_limit', retryable: true, upstreamCode: 17 }],
    ['page rate limit', 400, { error: { message: '(#32) Page request limit reached', type: 'OAuthException', code: 32 } }, { kind: 'rate_limit', retryable: true, upstreamCode: 32 }],
    ['send rate limit', 400, { error: { message: 'Calls to this api have exceeded the rate limit.', type: 'OAuthException', code: 613 } }, { kind: 'rate_limit', retryable: true, upstreamCode: 613 }],
    ['business use case limit', 400, { error: { message: 'There have been too many messages sent to this Instagram account.', type: 'OAuthException', code: 80002 } }, { kind: 'rate_limit', retryable: true, upstreamCode: 80002 }],
    ['HTTP 429', 429, {}, { kind: 'rate_limit', retryable: true, upstreamCode: 429 }],
    ['permission', 403, { error: { message: '(#10) Application does not have permission for this action', type: 'OAuthException', code: 10 } }, { kind: 'permission', retryable: false, upstreamCode: 10 }],
    ['invalid parameter', 400, { error: { message: '(#100) The parameter recipient is required', type: 'OAuthException', code: 100 } }, { kind: 'other', retryable: false, upstreamCode: 100 }],
    ['unavailable user', 400, { error: { message: "This person isn't available right now.", type: 'GraphMethodException', code: 551 } }, { kind: 'other', retryable: false, upstreamCode: 551 }],
    ['service unavailable', 503, { error: { message: 'An unexpected error has occurred. Please retry your request later.', type: 'OAuthException', code: 2, is_transient: true } }, { kind: 'other', retryable: true, upstreamCode: 2 }],
    ['transient hint', 400, { error: { message: 'Temporary failure', type: 'GraphMethodException', code: 1200, is_transient: true } }, { kind: 'other', retryable: true, upstreamCode: 1200 }],
    ['server error without JSON', 502, 'bad gateway', { kind: 'other', retryable: true, upstreamCode: 502 }],
  ];
  for (const [name, status, body, expected] of cases) {
    it(`maps ${name} (HTTP ${status}) to an UpstreamError with kind ${expected.kind}`, async () => {
      graph.on('POST', '/v21.0/me/messages', { status, body });
      await assert.rejects(client().postJson('me/messages', credentials, {}), (err: unknown) => {
        assert.ok(err instanceof GraphApiError);
        assert.equal(err.status, 502);
        const details = err.details as { kind: string; retryable: boolean; upstreamCode: number };
        assert.deepStrictEqual({ kind: details.kind, retryable: details.retryable, upstreamCode: details.upstreamCode }, expected);
        assert.ok(!err.message.includes(credentials.accessToken));
        return true;
      });
    });
  }

  it('words each kind for the caller', async () => {
    graph.on('GET', '/v21.0/me',
      { status: 400, body: { error: { message: 'Session has expired', type: 'OAuthException', code: 190 } } },
      { status: 400, body: { error: { message: '(#4) Application request limit reached', type: 'OAuthException', code: 4 } } },
      { status: 400, body: { error: { message: "This person isn't available right now.", type: 'GraphMethodException', code: 551 } } });
    const messages: string[] = [];
    for (let i = 0; i < 3; i++) await client().get('me', credentials).catch((err: Error) => messages.push(err.message));
    assert.deepStrictEqual(messages, [
      'Instagram access token is invalid or expired (OAuthException 190): Session has expired; link the account again with a valid token',
      'Instagram Graph API rate limit reached (OAuthException 4): (#4) Application request limit reached; retry later',
      "Instagram Graph API error (GraphMethodException 551): This person isn't available right now.",
    ]);
  });

  it('gives up after the time limit with a retryable error', async () => {
    graph.on('GET', '/v21.0/me', 'hang');
    await assert.rejects(client({ timeoutMs: 200 }).get('me', credentials), (err: unknown) =>
      err instanceof GraphApiError && err.message === 'Instagram Graph API unreachable: no answer within 200 ms'
      && (err.details as { retryable: boolean }).retryable === true);
  });

  it('reports a refused connection with a retryable error', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await assert.rejects(client({ baseUrl: `http://127.0.0.1:${port}` }).get('me', credentials), (err: unknown) =>
      err instanceof GraphApiError && /^Instagram Graph API unreachable: .*ECONNREFUSED/.test(err.message)
      && (err.details as { kind: string }).kind === 'network');
  });

  it('answers OutsideWindowError for Instagram\'s (2534022) and Messenger\'s (2018278) closed messaging window', async () => {
    for (const subcode of [2534022, 2018278]) {
      graph.on('POST', '/v21.0/me/messages', {
        status: 400, body: { error: { message: 'This message is sent outside of allowed window.', type: 'OAuthException', code: 10, error_subcode: subcode } },
      });
      await assert.rejects(client().postJson('me/messages', credentials, {}), (err: unknown) => err instanceof OutsideWindowError
        && err.code === 'outside_window' && (err.details as { subcode?: number }).subcode === subcode);
    }
  });

  it('classifies rate limits before OAuthException and appsecret_proof failures apart', () => {
    assert.equal(classifyGraphError(400, 4, 'OAuthException', 'limit'), 'rate_limit');
    assert.equal(classifyGraphError(400, 100, 'GraphMethodException', 'Invalid appsecret_proof provided in the API argument'), 'app_secret');
    assert.equal(classifyGraphError(400, 200, 'OAuthException', 'Permissions error'), 'permission');
    assert.equal(classifyGraphError(400, 2500, 'OAuthException', 'An active access token must be used'), 'token');
    assert.equal(classifyGraphError(400, 100, 'GraphMethodException', 'Unsupported get request'), 'other');
  });
});
