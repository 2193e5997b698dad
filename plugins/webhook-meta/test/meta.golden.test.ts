import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { EXTENSION_EVENT_IDS, SPEC_EVENT_IDS, webhookEventFixtures } from '@parley/testkit';
import { MetaFormat } from '../src/index.js';

// Golden files live in the source tree; the compiled test runs from dist/test.
const goldenDir = new URL('../../test/golden/', import.meta.url);
const fixtures = webhookEventFixtures();
const format = new MetaFormat();
const ids = [...SPEC_EVENT_IDS, ...EXTENSION_EVENT_IDS];

describe('meta format golden files (one per spec 6.3 event id and Parley extension id)', () => {
  it('has exactly one golden file per event id', () => {
    assert.deepEqual(readdirSync(goldenDir).sort(), ids.map((id) => `${id}.json`).sort());
  });

  for (const id of ids) {
    it(id, () => {
      const golden = JSON.parse(readFileSync(new URL(`${id}.json`, goldenDir), 'utf8')) as unknown;
      assert.deepStrictEqual(JSON.parse(JSON.stringify(format.render(fixtures.events[id], fixtures.context))), golden);
    });
  }
});
