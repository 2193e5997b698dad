import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Storage } from '@parley/core';
import { after, describe } from 'node:test';
import { describeMessagePageCases, describeStorageConformance } from '@parley/testkit';
import { SqliteStorage } from '../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'parley-sqlite-conformance-'));
let files = 0;
// The block-size cases below create stores under root after the conformance suite cleaned it up.
after(() => rmSync(root, { recursive: true, force: true }));

describeStorageConformance('sqlite', {
  create: async (clock) => new SqliteStorage({ file: join(root, `store-${++files}`, 'parley.db'), clock }),
  reopen: async (previous: Storage) => new SqliteStorage({ file: (previous as SqliteStorage).file }),
  cleanup: async () => rmSync(root, { recursive: true, force: true }),
});

// Chats of a few dozen messages span many blocks of 3: the cases split, merge and drop blocks.
describe('sqlite with message blocks of 3', () => {
  describeMessagePageCases({
    create: async (clock) => new SqliteStorage({ file: join(root, `store-${++files}`, 'parley.db'), clock, messageBlockSize: 3 }),
  });
});
