import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { CLOUD_ERRORS } from '../src/cloud-api/cloud-errors.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** One row of the documented table, per Parley code it names. */
interface DocumentedRow { http: string; code: number; subcode?: number; type?: string; title: string }

/**
 * The error table of docs/cloud-api.md ("| Parley code | HTTP | Cloud API code | Title |"), by Parley
 * code: a row naming two codes gives both.
 */
function documentedTable(): Map<string, DocumentedRow> {
  const doc = readFileSync(join(root, 'docs/cloud-api.md'), 'utf8');
  const start = doc.indexOf('| Parley code | HTTP | Cloud API code | Title |');
  assert.ok(start >= 0, 'the error table is in docs/cloud-api.md');
  const rows = new Map<string, DocumentedRow>();
  for (const line of doc.slice(start).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const [codes, http, cloud, title] = line.split('|').slice(1, 5).map((c) => c.trim()) as [string, string, string, string];
    if (codes === 'any other') continue;
    const code = /^(\d+)/.exec(cloud);
    assert.ok(code, `a Cloud API code in ${line}`);
    const subcode = /subcode (\d+)/.exec(cloud);
    const type = /\(`(\w+)`\)/.exec(cloud);
    // The title without what the docs add in parentheses.
    const row = { http, code: Number(code[1]), ...(subcode ? { subcode: Number(subcode[1]) } : {}), ...(type ? { type: type[1] } : {}), title: title.replace(/\s*\(.*\)$/, '') };
    // Only the Parley codes themselves: the cell may explain them in parentheses.
    for (const [, name] of codes.replace(/\(.*\)/g, '').matchAll(/`(\w+)`/g)) rows.set(name!, row);
  }
  return rows;
}

describe('the Cloud API error table: docs/cloud-api.md prints cloud-errors.ts', () => {
  const documented = documentedTable();

  it('documents every Parley code the table maps, and no other', () => {
    assert.deepEqual([...documented.keys()].sort(), Object.keys(CLOUD_ERRORS).sort());
  });

  it('documents each code\'s Cloud API code, subcode, type, title and the HTTP status where the Cloud API\'s differs', () => {
    const wrong: string[] = [];
    for (const [name, row] of Object.entries(CLOUD_ERRORS)) {
      const doc = documented.get(name);
      if (!doc) continue;
      if (doc.code !== row.code || doc.subcode !== row.subcode) wrong.push(`${name}: documented ${doc.code}/${doc.subcode}, answers ${row.code}/${row.subcode}`);
      if (doc.type !== undefined && doc.type !== (row.type ?? 'OAuthException')) wrong.push(`${name}: documented type ${doc.type}, answers ${row.type}`);
      if (!row.title.includes(doc.title)) wrong.push(`${name}: documented title "${doc.title}", answers "${row.title}"`);
      if (row.status !== undefined && !doc.http.split(/,\s*/).includes(String(row.status))) wrong.push(`${name}: documented HTTP ${doc.http}, answers ${row.status}`);
    }
    assert.deepEqual(wrong, []);
  });
});
