import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { LinkedAccountIndex, type InstanceRecord, type SocialLink } from '@parley/core';
import { webhookEventFixtures } from '@parley/testkit';
import { MemoryStorage } from '../src/index.js';

const link = (accountId: string, verifyToken: string): SocialLink => ({
  channel: 'instagram', accountId, accessToken: 'token', appSecret: 'secret', verifyToken, linkedAt: 1,
});

describe('LinkedAccountIndex over a real storage', () => {
  let storage: MemoryStorage;
  let index: LinkedAccountIndex;
  const record = (id: string, links: SocialLink[]): InstanceRecord => ({
    ...webhookEventFixtures().instance, id, key: `key-${id}`, links: Object.fromEntries(links.map((l) => [l.channel, l])),
  });

  beforeEach(async () => {
    storage = new MemoryStorage();
    await storage.init();
    index = new LinkedAccountIndex(storage.state, storage.instances);
  });

  it('finds the instance of an account and its verify token; forgets them on remove; keeps a token another account shares', async () => {
    await storage.instances.create(record('ins_a', [link('111', 'shared-token')]));
    await storage.instances.create(record('ins_b', [link('222', 'shared-token')]));
    await index.add('ins_a', link('111', 'shared-token'));
    await index.add('ins_b', link('222', 'shared-token'));
    assert.deepEqual(await index.find('instagram', '111'), { instanceId: 'ins_a', link: link('111', 'shared-token') });
    assert.equal(await index.find('messenger', '111'), null);
    assert.equal(await index.hasVerifyToken('instagram', 'shared-token'), true);
    assert.equal(await index.hasVerifyToken('instagram', 'other-token'), false);
    // The store keeps the token's hash, never the token.
    assert.ok(!JSON.stringify(await storage.state.list('parley.verify-tokens:instagram')).includes('shared-token'));

    await index.remove('ins_a', link('111', 'shared-token'));
    assert.equal(await index.find('instagram', '111'), null);
    assert.equal(await index.hasVerifyToken('instagram', 'shared-token'), true, 'ins_b still links an account with it');
    await index.remove('ins_b', link('222', 'shared-token'));
    assert.equal(await index.hasVerifyToken('instagram', 'shared-token'), false);
  });

  it('answers null for an entry whose record no longer holds the link, and ignores a removal by another instance', async () => {
    await storage.instances.create(record('ins_a', []));
    await index.add('ins_a', link('333', 'tok'));
    assert.equal(await index.find('instagram', '333'), null, 'the record does not link 333');
    await index.remove('ins_other', link('333', 'tok'));
    assert.deepEqual(await storage.state.get('parley.linked-accounts:instagram', '333'), { instanceId: 'ins_a' });
  });

  it('builds itself once from the records of a store written before it existed', async () => {
    await storage.instances.create(record('ins_a', [link('444', 'tok-4')]));
    assert.equal(await index.buildOnce(() => storage.instances.list()), true);
    assert.equal((await index.find('instagram', '444'))?.instanceId, 'ins_a');
    let listed = false;
    assert.equal(await index.buildOnce(async () => {
      listed = true;
      return [];
    }), false);
    assert.equal(listed, false, 'a built index never lists the instances again');
  });
});
