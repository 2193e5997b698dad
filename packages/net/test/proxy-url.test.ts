import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '@parley/core';
import { parseProxy, redactProxy } from '../src/index.js';

describe('parseProxy and redactProxy', () => {
  it('sorts proxy URLs by family; no proxy is undefined', () => {
    assert.equal(parseProxy(undefined), undefined);
    assert.equal(parseProxy('  '), undefined);
    for (const scheme of ['http', 'https']) assert.equal(parseProxy(`${scheme}://u:p@proxy.example:8080`)?.kind, 'http');
    for (const scheme of ['socks', 'socks4', 'socks4a', 'socks5', 'socks5h']) assert.equal(parseProxy(` ${scheme}://proxy.example:1080 `)?.kind, 'socks');
  });

  it('refuses what is not a proxy URL with a ValidationError', () => {
    const refused = (value: string, message: string) => assert.throws(() => parseProxy(value), (err) => err instanceof ValidationError && err.message === message);
    refused('proxy.example:8080', 'proxy has no host');
    refused('not a url', 'proxy must be an absolute URL such as http://user:pass@host:port or socks5://host:port');
    refused('ftp://proxy.example', 'proxy scheme ftp is not supported (use http, https or socks)');
  });

  it('hides the password for logs', () => {
    assert.equal(redactProxy('http://user:secret@proxy.example:8080'), 'http://user:***@proxy.example:8080/');
    assert.equal(redactProxy('socks5://proxy.example:1080'), 'socks5://proxy.example:1080');
    assert.equal(redactProxy('::'), '(unparseable proxy URL)');
  });
});
