import type { Storage } from '@parley/core';
import { filledInstanceRecord, messageRecord } from '@parley/testkit';
import { MemoryStorage } from '@parley/storage-memory';
import { copyStorage, type StorageCopyOptions, type StorageCopySummary } from '../src/index.js';

/** A source with one instance owning a bit of everything, and a server-wide state document. */
export async function filledSource() {
  const source = new MemoryStorage();
  await source.init();
  const record = filledInstanceRecord();
  await source.instances.create(record, [{ namespace: 'instance-name', value: 'support line' }]);
  for (const id of ['B2', 'A1', 'C3']) await source.messages.upsert(record.id, messageRecord('5511@s.whatsapp.net', id, 1_700_000_000));
  await source.chats.upsert(record.id, { id: '5511@s.whatsapp.net', name: 'Bob' });
  await source.contacts.upsert(record.id, { id: '5511@s.whatsapp.net', name: 'Bob' });
  await source.media.put(record.id, 'A1', { data: Buffer.from('bytes'), mimetype: 'image/png', fileName: 'a.png' });
  await source.authState.set(record.id, [{ category: 'creds', id: 'creds', value: '{"me":1}' }, { category: 'session', id: '5511.0', value: 's' }]);
  await source.state.put(`${record.id}:sandbox`, 'device', { paired: true });
  await source.state.put('sandbox:numbers', '5511999990000', record.id);
  await source.events.append([{ id: '01JAAAAAAAAAAAAAAAAAAAAAAA', instance: record.id, type: 'message', at: 1, event: '{}' }]);
  await source.outbound.setPaused(record.id, true);
  return { source, record };
}

/** Runs a copy in pages of 2 (`options` over that), counting the target's opening. */
export async function copy(source: Storage, target: Storage, options: Partial<Omit<StorageCopyOptions, 'source' | 'openTarget'>> = {}): Promise<{ summary?: StorageCopySummary; error?: unknown; opened: number }> {
  let opened = 0;
  const openTarget = async () => {
    opened++;
    return target;
  };
  try {
    return { summary: await copyStorage({ source, openTarget, batch: 2, progress: () => {}, ...options }), opened };
  } catch (error) {
    return { error, opened };
  }
}
