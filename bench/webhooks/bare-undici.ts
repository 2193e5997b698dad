import { Agent, request } from 'undici';

/**
 * The bare undici client the benches compare the engine with: one `Agent` keeping up to `connections`
 * keep-alive connections per origin, `request` per POST, the answer's body dumped. No guard, no
 * time-out, no signature: only what delivering a ready body takes.
 */
export function bareUndici(connections: number): { post(url: string, headers: Record<string, string>, body: string): Promise<number>; close(): Promise<void> } {
  const agent = new Agent({ connections, keepAliveTimeout: 30_000 });
  return {
    async post(url, headers, body) {
      const answer = await request(url, { method: 'POST', headers, body, dispatcher: agent });
      await answer.body.dump();
      return answer.statusCode;
    },
    close: () => agent.close(),
  };
}
