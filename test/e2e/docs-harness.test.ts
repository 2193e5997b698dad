import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { missingOutput, parseGuide } from '../support/doc-examples.js';
import { runGuide } from '../support/doc-runner.js';

const ENV = { B: 'http://127.0.0.1:1', T: 'unused-admin-token' };

/** The guides' test fails when a guide is wrong: the harness itself, on small guides written here. */
describe('docs/guides harness', () => {
  it('parses the convention: run, expected output, files, not-run with a reason, server config', () => {
    const guide = parseGuide('g', [
      '# G', '', '<!-- server: c.json -->', '<!-- file: c.json -->', '```json', '{"a": 1}', '```', '',
      '```sh', 'echo hi', '```', '', '```text', 'hi', '```', '',
      'Prose.', '', '```text', 'an illustration, not an expected output', '```', '',
      '<!-- not-run: needs a phone -->', '```sh', 'scan', '```', '',
      '<!-- not-run: -->', '```sh', 'x', '```', '', '```js', 'console.log(1)', '```',
    ].join('\n'));
    assert.equal(guide.serverConfig, 'c.json');
    assert.deepEqual(guide.steps.map((s) => s.kind), ['file', 'run', 'not-run', 'not-run']);
    assert.deepEqual(guide.steps[0], { kind: 'file', name: 'c.json', code: '{"a": 1}\n', line: 5 });
    assert.equal(guide.steps[1]!.kind === 'run' && guide.steps[1].expect, 'hi');
    assert.equal(guide.problems.length, 2);
    assert.match(guide.problems[0]!, /g\.md:\d+: a not-run block must say why/);
    assert.match(guide.problems[1]!, /a ```js block is neither run, saved/);
  });

  it('matches expected output line by line, in order, … standing for any text', () => {
    assert.equal(missingOutput('a\n…c', 'a\nb\nxxc\n'), undefined);
    assert.equal(missingOutput('{"id":"…"}', '{"id":"3EB0"}'), undefined);
    assert.equal(missingOutput('b\na', 'a\nb'), 'a', 'order counts');
    assert.equal(missingOutput('a.c', 'abc'), 'a.c', 'no other pattern syntax');
  });

  it('fails a guide whose output lacks a documented line, or whose block fails, naming its line', async () => {
    const wrong = parseGuide('wrong', '```sh\necho 41\n```\n\n```text\n42\n```\n');
    await assert.rejects(runGuide(wrong, ENV), /wrong\.md:1: the output lacks the documented line\n {2}42\n--- the block printed:\n41/);
    const failing = parseGuide('failing', '```sh\necho fine\n```\n\n```sh\nfalse\necho never\n```\n');
    await assert.rejects(runGuide(failing, ENV), /failing\.md:5: the block failed \(exit 1\)/);
  });

  it('carries shell state across blocks, saves files, and ends what a guide left in the background', async () => {
    const guide = parseGuide('ok', [
      '<!-- file: hello.mjs -->', '```js', 'console.log(`hello ${process.env.WHO}`);', '```',
      '```sh', 'WHO=reader; sleep 1000 &', 'echo $!', '```', '```sh', 'WHO=$WHO node hello.mjs', '```', '```text', 'hello reader', '```',
    ].join('\n'));
    const results = await runGuide(guide, ENV, 20_000);
    assert.equal(results[1]!.output.trim(), 'hello reader');
    const sleeper = `/proc/${results[0]!.output.trim()}/status`;
    assert.ok(!existsSync(sleeper) || /^State:\s+Z/m.test(readFileSync(sleeper, 'utf8')), 'the background sleep was ended');
  });
});
