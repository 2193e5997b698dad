import type { InstanceRecord, InstanceRepository } from '@parley/core';

/**
 * Before external databases became a connector extension point, an instance record kept its attached
 * database under `mongodb` (the one connector there was). Such records are moved to
 * `externalDatabase` of kind `mongodb` once, at start, so their history keeps going to that database.
 */
export async function upgradeLegacyRecords(records: InstanceRecord[], instances: InstanceRepository): Promise<InstanceRecord[]> {
  return Promise.all(records.map(async (record) => {
    const legacy = (record as InstanceRecord & { mongodb?: { uri: string; dbName: string } }).mongodb;
    if (!legacy) return record;
    const patch = { externalDatabase: record.externalDatabase ?? { kind: 'mongodb', uri: legacy.uri, dbName: legacy.dbName }, mongodb: undefined };
    return instances.update(record.id, patch as Partial<InstanceRecord>);
  }));
}
