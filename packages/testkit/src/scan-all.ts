import assert from 'node:assert/strict';
import type { ScanPage, ScanRequest } from '@parley/core';

/**
 * Every item of an enumeration (`messages.scan`, `media.scanIds`…), read in keyset pages of `limit`
 * from the first, checking that each page stays within it and moves the position on. `pages`, when
 * given, receives each page's size.
 */
export async function scanAll<T>(scan: (request: ScanRequest) => Promise<ScanPage<T>>, limit: number, pages: number[] = []): Promise<T[]> {
  const items: T[] = [];
  let after: string | undefined;
  for (let page = 0; page < 1_000_000; page++) {
    const read = await scan({ limit, ...(after === undefined ? {} : { after }) });
    assert.ok(read.items.length <= limit, `a page holds at most ${limit} items`);
    items.push(...read.items);
    pages.push(read.items.length);
    if (read.next === undefined) return items;
    assert.notEqual(read.next, after, 'a page moves the position on');
    after = read.next;
  }
  assert.fail('a scan ends');
}
