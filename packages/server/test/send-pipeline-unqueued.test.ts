import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isParleyError } from '@parley/core';
import type { MediaResolver } from '../src/services/media-resolver.js';
import { SendPipeline } from '../src/send/send-pipeline.js';
import { JOB, outboundHarness } from './outbound-fakes.js';

/**
 * Issue 24 item 5 without the outbound queue (`queue.enabled` false): a send the channel took whose
 * record cannot be stored answers 500 `sent_not_recorded`, not the storage's 503, which would tell the
 * client nothing was sent.
 */
describe('SendPipeline without the queue: a sent message whose record could not be stored', () => {
  it('answers sent_not_recorded naming the message', async () => {
    const { h, storage, runtime, bus } = await outboundHarness();
    h.failStores = 1;
    const pipeline = new SendPipeline(storage, {} as MediaResolver, bus);
    const answer = await pipeline.send(runtime, 'text', { to: JOB.to, text: 'once' }).then(() => null, (err: unknown) => err);
    assert.ok(isParleyError(answer) && answer.status === 500 && answer.code === 'sent_not_recorded', String(answer));
    assert.deepEqual(h.sends, ['CHANNEL1']);
    assert.deepEqual(answer.details, { messageId: 'CHANNEL1' });
    await storage.close();
  });
});
