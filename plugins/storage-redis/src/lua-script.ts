import { createHash } from 'node:crypto';
import { ErrorReply, RESP_TYPES } from 'redis';
import type { RedisClient } from './redis-connection.js';

const AS_BUFFERS = { [RESP_TYPES.BLOB_STRING]: Buffer } as const;

/**
 * A server-side Lua script, sent by digest (EVALSHA) and by source only when the server does not know
 * it yet (a fresh or restarted Redis answers NOSCRIPT). Scripts run atomically: no other command
 * interleaves with one.
 */
export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** Runs the script; with `buffers`, string replies arrive as Buffers (binary data). */
  async run(client: RedisClient, keys: string[], args: (string | number)[], buffers = false): Promise<unknown> {
    const options = { keys, arguments: args.map(String) };
    const target = buffers ? (client.withTypeMapping(AS_BUFFERS) as unknown as RedisClient) : client;
    try {
      return await target.evalSha(this.sha, options);
    } catch (err) {
      if (err instanceof ErrorReply && err.message.startsWith('NOSCRIPT')) return target.eval(this.source, options);
      throw err;
    }
  }
}

/** A flat `[field, value, field, value…]` reply (HGETALL inside Lua) as an object. */
export function pairsToObject(reply: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const list = reply as string[];
  for (let i = 0; i + 1 < list.length; i += 2) out[list[i]!] = list[i + 1]!;
  return out;
}
