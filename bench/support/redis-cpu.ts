import { createClient } from 'redis';

/**
 * The pid of the redis-server at `url` (its `INFO server` process_id), whose CPU a Redis target's
 * send pays for on top of its own: it must run on this machine (/proc). On a shared Redis every
 * other client's commands count too: a private `redis-server` gives the cleaner figure.
 */
export async function redisServerPid(url: string): Promise<number> {
  const client = createClient({ url });
  await client.connect();
  try {
    const info = await client.info('server');
    const pid = /process_id:(\d+)/.exec(info)?.[1];
    if (!pid) throw new Error(`no process_id in INFO server of ${url}`);
    return Number(pid);
  } finally {
    await client.close();
  }
}

