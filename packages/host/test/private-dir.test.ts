import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { privateDir } from '../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'parley-private-dir-'));
after(() => rmSync(root, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o777;

describe('privateDir', () => {
  it('privateDir creates missing directories 0700 and tightens an existing one others could enter', () => {
    const created = join(root, 'a', 'b');
    assert.equal(privateDir(created), 'private');
    assert.equal(mode(created), 0o700);
    assert.equal(mode(join(root, 'a')), 0o700);

    const open = join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o755);
    assert.equal(privateDir(open), 'tightened');
    assert.equal(mode(open), 0o700);
    assert.equal(privateDir(open), 'private', 'a private directory is left alone');
  });

  it('privateDir leaves a directory with the sticky bit (as /tmp) as it is', () => {
    const sticky = join(root, 'sticky');
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    assert.equal(privateDir(sticky), 'shared');
    assert.equal(statSync(sticky).mode & 0o7777, 0o1777);
  });

  it('privateDir leaves another user\'s directory as it is', { skip: process.getuid?.() !== 0 && 'giving a directory to another user needs root' }, () => {
    const theirs = join(root, 'theirs');
    mkdirSync(theirs);
    chmodSync(theirs, 0o755);
    chownSync(theirs, 65534, 65534);
    assert.equal(privateDir(theirs), 'shared');
    assert.equal(mode(theirs), 0o755);
  });
});
