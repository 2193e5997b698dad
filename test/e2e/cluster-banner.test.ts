import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { deleteKeys } from '@parley/storage-redis/testing';
import { serviceUrlOrSkip } from '@parley/testkit';
import { freePort, NodeProcess } from '@parley/testkit/host';

const redisUrl = serviceUrlOrSkip('REDIS_URL', 'the banner of a cluster node');

describe('the start-up banner of a cluster node', { skip: !redisUrl }, () => {
  const keyPrefix = `parley-test:banner:${process.pid}-${randomBytes(4).toString('hex')}:`;
  const dir = mkdtempSync(join(tmpdir(), 'parley-cluster-banner-'));
  const nodes: NodeProcess[] = [];
  after(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await deleteKeys(redisUrl!, keyPrefix);
    rmSync(dir, { recursive: true, force: true });
  });

  /** The banner's lines from `Storage` on, once the node is ready. */
  const bannerOf = (node: NodeProcess) => node.lines.slice(node.lines.findIndex((l) => l.startsWith('  Storage')), node.lines.findIndex((l) => l.startsWith('  Channels')));

  it('names the node, its address, the Redis the nodes share (without credentials) and the peers it found', async () => {
    const [p1, p2] = [await freePort(), await freePort()];
    const url = new URL(redisUrl!);
    url.username = 'default';
    url.password = 'banner-secret';
    nodes.push(await NodeProcess.start({ id: 'b1', port: p1, redisUrl: url.href, keyPrefix, dir }));
    nodes.push(await NodeProcess.start({ id: 'b2', port: p2, redisUrl: url.href, keyPrefix, dir }));
    const where = `redis://***@${url.host}${url.pathname === '/' ? '' : url.pathname} (keys ${keyPrefix}*)`;
    const [first, second] = nodes.map(bannerOf);
    assert.deepEqual(first!.slice(1), [
      `  Cluster    node b1 at http://127.0.0.1:${p1}, coordinated through redis ${where}`,
      '             peers: none alive yet',
    ]);
    assert.equal(first![0], `  Storage    redis ${where}   data dir: ${join(dir, 'b1')}`);
    assert.deepEqual(second!.slice(1), [
      `  Cluster    node b2 at http://127.0.0.1:${p2}, coordinated through redis ${where}`,
      `             peers: b1 http://127.0.0.1:${p1}`,
    ]);
    assert.ok(!nodes.some((node) => node.lines.join('\n').includes('banner-secret')), 'the password is never printed');
  });
});
