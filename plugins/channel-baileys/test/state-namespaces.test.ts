import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStorage } from '@parley/storage-memory';
import { connectOpen, createHarness, INSTANCE_ID, instanceRecord } from './harness.js';

describe('the channel\'s state documents (labels, label chats, stories)', () => {
  it('live under the instance\'s prefix, and those an earlier version kept outside it move there once', async () => {
    const storage = new MemoryStorage();
    await storage.init();
    await storage.instances.create(instanceRecord());
    // Where versions before this one kept them: outside `<instance>:`, so deleting the instance left them behind.
    await storage.state.put(`baileys.${INSTANCE_ID}.labels`, '4', { id: '4', name: 'Pagamento pendente', color: 2 });
    await storage.state.put(`baileys.${INSTANCE_ID}.label-chats`, '4', ['5511999990001@s.whatsapp.net']);
    const h = await createHarness({ storage });
    await connectOpen(h);
    assert.deepStrictEqual(await h.adapter.capabilities.labels!.list(), [{ id: '4', name: 'Pagamento pendente', color: 2 }]);
    assert.deepStrictEqual(await storage.state.list(`baileys.${INSTANCE_ID}.labels`), []);
    assert.deepStrictEqual(await storage.state.list(`baileys.${INSTANCE_ID}.label-chats`), []);
    assert.deepStrictEqual((await storage.state.list(`${INSTANCE_ID}:baileys.label-chats`)).map((d) => d.value), [['5511999990001@s.whatsapp.net']]);

    // Deleting the instance clears its prefix: nothing of the channel's is left.
    await storage.state.clearPrefix(`${INSTANCE_ID}:`);
    assert.deepStrictEqual(await h.adapter.capabilities.labels!.list(), []);
    await h.adapter.stop();
  });
});
