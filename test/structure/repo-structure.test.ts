import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { importCircles, sourceGraph, undeclaredImports, type Manifest } from './source-imports.js';

const root = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
/** Where source lives: every workspace package's `src` and `test`, the examples, the e2e tests and benchmarks. */
const WORKSPACES = ['packages', 'plugins', 'examples'];
const SKIP = new Set(['node_modules', 'dist', '.git', 'generated', 'fixtures', '.parley-data']);
const MAX_LINES = 400;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/**
 * The compiled `dist/src` folders of every workspace package: the import graph that loads at run time.
 * dependency-cruiser reads the JavaScript `tsc -b` emitted (npm test builds first): its TypeScript
 * parser needs the compiler API of TypeScript < 7, which the project's TypeScript 7 no longer ships;
 * the emitted modules keep every import but `import type`, which loads nothing.
 */
function compiledDirs(): string[] {
  const dirs = WORKSPACES.flatMap((group) => readdirSync(join(root, group), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, group, entry.name, 'src')))
    .map((entry) => relative(root, join(root, group, entry.name, 'dist', 'src'))));
  const missing = dirs.filter((dir) => !existsSync(join(root, dir)));
  assert.deepEqual(missing, [], 'build first (npm test does): these packages have no compiled output');
  return dirs;
}

describe('repository structure', () => {
  it('has no import circles in any package (dependency-cruiser over the compiled modules)', async () => {
    const { cruise } = await import('dependency-cruiser');
    const previous = process.cwd();
    process.chdir(root);
    try {
      const { output } = await cruise(compiledDirs(), {
        validate: true,
        ruleSet: { forbidden: [{ name: 'no-circular', severity: 'error', from: {}, to: { circular: true } }] },
        // Third-party modules are not followed (their own circles are theirs); workspace packages resolve to their real paths.
        doNotFollow: { path: 'node_modules' },
        exclude: { path: '[\\\\/]generated[\\\\/]' },
      });
      assert.ok(typeof output !== 'string');
      const circles = output.summary.violations.filter((v) => v.rule.name === 'no-circular')
        .map((v) => [v.from, ...(v.cycle ?? []).map((step) => step.name)].join(' > '));
      assert.ok(output.summary.totalCruised > 100, `only ${output.summary.totalCruised} modules cruised`);
      assert.deepEqual(circles, []);
    } finally {
      process.chdir(previous);
    }
  });

  it('has no import circles among the TypeScript sources of any package, type-only imports included', () => {
    const files = WORKSPACES.flatMap((group) => readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, group, entry.name, 'src')))
      .flatMap((entry) => sourceFiles(join(root, group, entry.name, 'src'))));
    assert.ok(files.length > 300, `only ${files.length} source files`);
    assert.deepEqual(importCircles(sourceGraph(files), root), []);
  });

  it('sees a circle made of `import type` and `export type … from` alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-circles-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import type {\n  B,\n} from './b.js';\nexport interface A { b: B }\n");
      writeFileSync(join(dir, 'b.ts'), "export type { A as B } from './a.js';\n");
      writeFileSync(join(dir, 'c.ts'), "import { a } from './a.js';\n");
      assert.deepEqual(importCircles(sourceGraph(['a.ts', 'b.ts', 'c.ts'].map((f) => join(dir, f))), dir), [['a.ts', 'b.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('imports in every published package only what its package.json declares (dependencies and peers)', () => {
    const undeclared = WORKSPACES.flatMap((group) => readdirSync(join(root, group), { withFileTypes: true })
      .map((entry) => join(root, group, entry.name))
      .filter((dir) => existsSync(join(dir, 'src')) && existsSync(join(dir, 'package.json')))
      .flatMap((dir) => {
        const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
        // A package without an entry point ships a bundle (the dashboard's built app): what it imports is built in, not installed.
        if (manifest.private || !manifest.main) return [];
        return undeclaredImports(sourceFiles(join(dir, 'src')), manifest).map((i) => `${relative(root, i.file)}: ${i.specifier}`);
      }));
    assert.deepEqual(undeclared, []);
  });

  it(`keeps every hand-written source and test file under ${MAX_LINES} lines (generated code and fixtures aside)`, () => {
    const dirs = [...WORKSPACES, 'test', 'bench'].map((d) => join(root, d));
    const long = dirs.flatMap((dir) => sourceFiles(dir))
      .map((file) => ({ file: relative(root, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_LINES);
    assert.deepEqual(long, []);
  });
});
