import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../src', import.meta.url));

/** Every TypeScript file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** A column compared with a bare parameter (`instance = ?`, `id > @after`) in a WHERE, AND, OR or ON term. */
const BARE = /\b(WHERE|AND|OR|ON)\s+[\w.]+\s*(=|<=|>=|<>|!=|<|>)\s*(\?|@\w+)/g;

describe('SqliteStorage statements', () => {
  // better-sqlite3 builds SQLite with STAT4: a bare parameter compared with an indexed column makes
  // SQLite recompile the statement on every bind (an outbound lane's head read took 120-140 µs instead
  // of 8 under bench/rest-send; bench/RESULTS.md). `+?` binds the same value and keeps the plan.
  it('compare columns with +? parameters, never a bare ? or @name', () => {
    const bare = sources(src).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(BARE)].map((m) => `${file.slice(src.length + 1)}: ${m[0]}`));
    assert.deepEqual(bare, []);
  });
});
