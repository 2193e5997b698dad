import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { killLeftovers, spawnNode, untilProcess } from '../src/index.js';

describe('spawnNode and killLeftovers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'testkit-process-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('kills the processes still running, waits for them, and leaves those that ended alone', async () => {
    const forever = join(dir, 'forever.js');
    writeFileSync(forever, "process.on('SIGTERM', () => {}); console.log('up'); setInterval(() => {}, 1000);\n");
    const quick = join(dir, 'quick.js');
    writeFileSync(quick, "console.log('done');\n");

    const ended = spawnNode(quick);
    assert.deepEqual(await ended.exited, { code: 0, signal: null });
    const stuck = [spawnNode(forever), spawnNode(forever)];
    for (const proc of stuck) await untilProcess(() => (proc.stdout().includes('up') ? true : undefined), 'the script to start', proc);

    await killLeftovers();
    for (const proc of stuck) assert.deepEqual(await proc.exited, { code: null, signal: 'SIGKILL' });
    assert.equal(ended.stdout(), 'done\n');
    await killLeftovers(); // nothing left: answers at once
  });
});
