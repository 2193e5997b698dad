import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { unsupportedNode } from '../src/node-version.js';

const { engines } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };

describe('unsupportedNode', () => {
  it('refuses a Node below the engines minimum, naming the range', () => {
    assert.equal(unsupportedNode('v20.20.2', '^22.14.0 || ^24.0.0'), 'Node.js ^22.14.0 || ^24.0.0 is required; this is v20.20.2');
    assert.equal(unsupportedNode('v22.13.1', '^22.14.0 || ^24.0.0'), 'Node.js ^22.14.0 || ^24.0.0 is required; this is v22.13.1');
  });

  it('accepts the tested majors and lets a newer one through', () => {
    for (const version of ['v22.14.0', 'v22.23.3', 'v24.21.0', 'v26.1.0']) assert.equal(unsupportedNode(version, '^22.14.0 || ^24.0.0'), undefined);
  });

  it('accepts the Node running the tests, with the package engines', () => {
    assert.equal(unsupportedNode(process.version, engines.node), undefined);
  });
});
