import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { privateExistingFile, privateFile } from '../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'parley-private-'));
after(() => rmSync(root, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o777;

describe('private files', () => {
  it('privateFile creates a missing file empty and 0600, tightens an existing one and keeps its content', () => {
    const fresh = join(root, 'fresh');
    assert.equal(privateFile(fresh), false);
    assert.equal(mode(fresh), 0o600);
    assert.equal(readFileSync(fresh, 'utf8'), '');

    const loose = join(root, 'loose');
    writeFileSync(loose, 'secret');
    chmodSync(loose, 0o644);
    assert.equal(privateFile(loose), true);
    assert.equal(mode(loose), 0o600);
    assert.equal(readFileSync(loose, 'utf8'), 'secret');
  });

  it('privateExistingFile tightens a group-readable file, leaves a private one and ignores a missing one', () => {
    const file = join(root, 'group');
    writeFileSync(file, 'x');
    chmodSync(file, 0o640);
    assert.equal(privateExistingFile(file), true);
    assert.equal(mode(file), 0o600);
    assert.equal(privateExistingFile(file), false);
    assert.equal(privateExistingFile(join(root, 'missing')), false);
  });
});
