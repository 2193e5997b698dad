#!/usr/bin/env node
// Generates packages/client/src/generated/operations.ts from the server's OpenAPI document.
//
//   npm run generate -w @parley/client            writes the file
//   node packages/client/scripts/generate.mjs --check   exits 1 when the file is out of date
//
// It listens on nothing and touches no real data: it builds the server with the default plugins on
// in-memory storage in a temporary directory, reads the OpenAPI document the routes produce, and
// closes it again. The built distribution is needed (`npx tsc -b packages/distribution`: the server and the plugins).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderOperations } from './render-operations.mjs';

const TARGET = fileURLToPath(new URL('../src/generated/operations.ts', import.meta.url));
export const COMMAND = 'npm run generate -w @parley/client';

/** The OpenAPI document of a server with every default plugin, built without listening. */
export async function serverOpenApi() {
  const { createLogger, DEFAULT_PLUGINS, importPlugin, loadConfig, ParleyServer } = await import('@parley/distribution');
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-client-generate-'));
  try {
    const plugins = DEFAULT_PLUGINS.map((p) => (p.package === '@parley/storage-sqlite' ? { package: '@parley/storage-memory' } : p));
    const config = loadConfig({}, { port: 0, dataDir, plugins, adminToken: 'client-generator-token', logLevel: 'silent' });
    const server = await ParleyServer.create({ config, logger: createLogger({ level: 'silent' }), importModule: importPlugin });
    try {
      return JSON.parse(JSON.stringify(server.openapi));
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const check = process.argv.includes('--check');
  const text = renderOperations(await serverOpenApi());
  const shown = relative(process.cwd(), TARGET) || TARGET;
  if (check) {
    let current = '';
    try {
      current = readFileSync(TARGET, 'utf8');
    } catch {
      // missing: reported below
    }
    if (current !== text) {
      console.error(`${shown} is out of date with the server's OpenAPI document: run \`${COMMAND}\` and commit the result.`);
      process.exit(1);
    }
    console.log(`${shown} is up to date`);
    return;
  }
  writeFileSync(TARGET, text);
  console.log(`wrote ${shown}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    console.error(`client generation failed: ${err?.stack ?? err}`);
    console.error('Build the server and its plugins first: npx tsc -b packages/distribution');
    process.exit(1);
  });
}
