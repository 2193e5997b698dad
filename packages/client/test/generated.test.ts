import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';

const root = fileURLToPath(new URL('../../', import.meta.url));
const COMMAND = 'npm run generate -w @parley/client';

describe('src/generated/operations.ts', () => {
  it('is what the generator produces from the current server (never drifts)', () => {
    const run = spawnSync(process.execPath, [join(root, 'scripts', 'generate.mjs'), '--check'], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 0,
      `packages/client/src/generated/operations.ts does not match the server's routes. Run \`${COMMAND}\` (after \`npx tsc -b packages/server\`) and commit the result.\n${run.stderr}${run.stdout}`);
    assert.match(run.stdout, /is up to date/);
  });
});

describe('schema-to-ts printer', () => {
  const printer = () => import(pathToFileURL(join(root, 'scripts', 'schema-to-ts.mjs')).href) as Promise<{ schemaToType(schema: unknown, options?: { indent?: string; refs?: Record<string, string> }): string }>;

  it('prints scalars, literals, unions and arrays', async () => {
    const { schemaToType } = await printer();
    assert.equal(schemaToType({ type: 'string' }), 'string');
    assert.equal(schemaToType({ type: 'string', format: 'binary' }), 'Uint8Array');
    assert.equal(schemaToType({ type: 'integer', const: 200 }), '200');
    assert.equal(schemaToType({ enum: ['a', 'b', null] }), '"a" | "b" | null');
    assert.equal(schemaToType({ type: ['string', 'null'] }), 'string | null');
    assert.equal(schemaToType({ anyOf: [{ type: 'number' }, { type: 'null' }] }), 'number | null');
    assert.equal(schemaToType({ type: 'array', items: { enum: ['x', 'y'] } }), '("x" | "y")[]');
    assert.equal(schemaToType({ type: 'array', items: { type: 'array', items: { type: 'boolean' } } }), 'boolean[][]');
    assert.equal(schemaToType({ type: 'array' }), 'unknown[]');
    assert.equal(schemaToType({}), 'unknown');
    assert.equal(schemaToType({ anyOf: [{ type: 'string' }, {}] }), 'unknown');
    assert.equal(schemaToType({ $ref: '#/components/schemas/Error' }, { refs: { '#/components/schemas/Error': 'ErrorBody' } }), 'ErrorBody');
    assert.equal(schemaToType({ allOf: [{ $ref: '#/a' }, { $ref: '#/b' }] }, { refs: { '#/a': 'A', '#/b': 'B' } }), 'A & B');
  });

  it('prints objects with required and optional members, quoted names and TSDoc', async () => {
    const { schemaToType } = await printer();
    assert.equal(schemaToType({
      type: 'object', additionalProperties: false, required: ['to'],
      properties: { to: { type: 'string', description: 'Recipient */ digits.' }, 'x-trace': { type: 'integer' } },
    }), '{\n  /** Recipient *\u200b/ digits. */\n  to: string;\n  "x-trace"?: number;\n}');
    assert.equal(schemaToType({ type: 'object' }), 'Record<string, unknown>');
    assert.equal(schemaToType({ type: 'object', additionalProperties: false }), 'Record<string, never>');
    assert.equal(schemaToType({ type: 'object', additionalProperties: { type: 'string' } }), 'Record<string, string>');
    assert.equal(schemaToType({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } }), '{\n  a?: string;\n  [member: string]: unknown;\n}');
  });
});

describe('@parley/client sources', () => {
  it('use no Node APIs, so the client runs in browsers', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.ts')) files.push(path);
      }
    };
    walk(join(root, 'src'));
    assert.ok(files.length >= 4);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      assert.doesNotMatch(text, /from ['"]node:|from ['"](fs|path|http|https|crypto|os|url|stream|buffer)['"]|require\(|\bBuffer\b|\bprocess\.|__dirname/, file);
    }
  });

  it('declare no dependencies', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    assert.deepEqual(pkg.dependencies ?? {}, {});
  });
});
