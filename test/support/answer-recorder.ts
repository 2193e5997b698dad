import { ParleyClient, type InstanceClient } from '@parley/client';
import { testResponseOf, type TestResponse, type TestServer } from './test-server.js';

/**
 * The typed `@parley/client` of a test server, through a `fetch` that keeps the HTTP answer of the
 * latest call: for what a typed answer does not carry (headers, the exact bytes), the call itself
 * still going through the client. Calls through one recorder must not overlap.
 */
export class AnswerRecorder {
  /** The admin client (with the admin token), recording. */
  readonly client: ParleyClient;
  private answer?: TestResponse;

  constructor(t: TestServer) {
    this.client = new ParleyClient({
      baseUrl: t.url,
      adminToken: t.adminToken,
      fetch: async (input, init) => {
        const res = await globalThis.fetch(input, init);
        this.answer = await testResponseOf(res.clone());
        return res;
      },
    });
  }

  /** The recording client scoped to one instance key. */
  instance(key: string): InstanceClient {
    return this.client.instance(key);
  }

  /** The HTTP answer of the latest call (2xx or not). */
  get last(): TestResponse {
    if (!this.answer) throw new Error('no call went through this recorder yet');
    return this.answer;
  }
}
