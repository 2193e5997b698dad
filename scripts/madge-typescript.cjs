// madge's parsers (detective-typescript via @typescript-eslint/typescript-estree) need the
// TypeScript 5 compiler API; the repository builds with TypeScript 7, which has no JS API. This
// preload points their `require('typescript')` at the TypeScript 5 that madge's own dependency
// tree installs, leaving the build's compiler alone.
const Module = require('node:module');
const path = require('node:path');

const ts5 = require.resolve('typescript', { paths: [path.dirname(require.resolve('filing-cabinet/package.json'))] });
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, request === 'typescript' ? ts5 : request, ...rest);
};
