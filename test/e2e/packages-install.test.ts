import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from '../support/container-image.js';
import { undeclaredImports } from '../structure/source-imports.js';
import { exportTargets, manifestOf, npm, publishableDirs, run, workspaceDirs, type PackageManifest, type PackedPackage } from '../support/packed-packages.js';

/** What the example channels are built and tested with outside the repository (a third party's tool choice). */
const VITEST = '5.1.2';
const TYPES_NODE = '^24.0.0';
/** The packages a channel author installs to build and test the example channels. */
const AUTHOR_PACKAGES = ['@parley/core', '@parley/net', '@parley/testkit', '@parley/storage-memory'];
/** The example channels, and which of their tests run outside (the Telegram end-to-end test needs a whole server). */
const EXAMPLES = [
  { dir: 'channel-signal', tests: ['addressing.test', 'signal.conformance.test', 'conformance-far-side'] },
  { dir: 'channel-telegram', tests: ['telegram.conformance.test', 'conformance-far-side'] },
];

/** The environment of a test run started from this one: its own top-level run, not a child of this test's. */
const AS_TOP_LEVEL = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_TEST_CONTEXT'));

/** The compiler options of the examples' projects, standalone (no project references into the repository). */
const TSCONFIG = {
  compilerOptions: {
    target: 'es2022', lib: ['es2023'], module: 'nodenext', moduleResolution: 'nodenext', strict: true, declaration: true,
    skipLibCheck: false, rootDir: '.', outDir: 'dist', types: ['node'],
  },
  include: ['src', 'test'],
};

/**
 * The packages as a third party gets them: every package lerna publishes is packed with `npm pack`,
 * and each tarball is checked (README, version, every `exports` target inside, no tests, every import
 * declared as a dependency or peer). The channel author's packages are then installed from their
 * tarballs into a directory outside the repository, where the example channels are built with the
 * repository's TypeScript and their tests run under node:test and under vitest (from the registry).
 */
describe('publishable packages, installed outside the repository', () => {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'parley-pack-')));
  const tarballs = join(scratch, 'tarballs');
  const project = join(scratch, 'author');
  const packed = new Map<string, { manifest: PackageManifest; dir: string; pack: PackedPackage }>();
  let lernaPackages: string[] = [];

  before(async () => {
    assert.ok(relative(ROOT, scratch).startsWith('..'), `${scratch} is outside the repository`);
    mkdirSync(tarballs);
    const dirs = publishableDirs();
    const workspaces = dirs.flatMap((dir) => ['-w', manifestOf(dir).name]);
    const lernaList = run(process.execPath, [join(ROOT, 'node_modules', 'lerna', 'dist', 'cli.js'), 'ls', '--json', '--loglevel=error'], ROOT);
    const report = JSON.parse(await npm(['pack', '--json', '--pack-destination', tarballs, ...workspaces], ROOT)) as PackedPackage[];
    lernaPackages = (JSON.parse(await lernaList) as { name: string }[]).map((p) => p.name);
    for (const dir of dirs) {
      const manifest = manifestOf(dir);
      const pack = report.find((p) => p.name === manifest.name);
      assert.ok(pack, `${manifest.name} was packed`);
      packed.set(manifest.name, { manifest, dir, pack });
    }
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('packs exactly the packages lerna versions and publishes (lerna ls)', () => {
    assert.deepEqual([...packed.keys()].sort(), [...lernaPackages].sort());
  });

  it('packs every package lerna publishes with a README, a version, its exports, no tests and no private dependency', () => {
    assert.ok(packed.size >= 20, `${packed.size} packages`);
    const privateWorkspaces = new Set(workspaceDirs().map(manifestOf).filter((m) => m.private).map((m) => m.name));
    for (const [name, { manifest, pack }] of packed) {
      const files = new Set(pack.files.map((f) => f.path));
      assert.match(manifest.version ?? '', /^\d+\.\d+\.\d+(-[\w.]+)?$/, `${name} has a version`);
      assert.equal(manifest.type, 'module', `${name} is ESM`);
      assert.ok(manifest.license, `${name} has a license`);
      assert.ok(files.has('README.md'), `${name} ships a README`);
      const targets = exportTargets(manifest);
      assert.ok(manifest.exports, `${name} declares exports`);
      // A package of code declares its types; an asset package (the dashboard's built app) exports files only.
      if (targets.some((t) => t.endsWith('.js'))) assert.ok(manifest.types, `${name} declares types`);
      for (const target of targets) {
        const [prefix, suffix] = target.split('*') as [string, string?];
        const present = suffix === undefined ? files.has(target) : [...files].some((f) => f.startsWith(prefix) && f.endsWith(suffix) && f.length > prefix.length + suffix.length);
        assert.ok(present, `${name}: ${target} (exports) is in the tarball`);
      }
      const privateDependencies = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).filter((dep) => privateWorkspaces.has(dep));
      assert.deepEqual(privateDependencies, [], `${name} depends on no private workspace package (a third party could not install it)`);
      assert.deepEqual([...files].filter((f) => /(^|\/)test\/|(^|\/)tsconfig[^/]*\.json$|\.tsbuildinfo$/.test(f)), [], `${name} ships no test or build files`);
    }
  });

  it('declares every package its shipped code imports as a dependency or peer (devDependencies are not installed)', () => {
    for (const [name, { manifest, dir, pack }] of packed) {
      // The structure test reads the sources; this reads what ships, declarations included.
      const shipped = pack.files.filter((f) => /\.(js|d\.ts)$/.test(f.path)).map((f) => join(dir, f.path));
      const undeclared = undeclaredImports(shipped, manifest).map((i) => `${relative(dir, i.file)}: ${i.specifier}`);
      assert.deepEqual(undeclared, [], `${name} imports what it does not declare`);
    }
  });

  it('builds the example channels against the installed tarballs and passes their tests under node:test and vitest', async () => {
    mkdirSync(project);
    const devDependencies: Record<string, string> = { '@types/node': TYPES_NODE, vitest: VITEST };
    for (const name of AUTHOR_PACKAGES) devDependencies[name] = `file:${join(tarballs, packed.get(name)!.pack.filename)}`;
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'channel-author', private: true, type: 'module', devDependencies }, null, 2));
    await npm(['install', '--ignore-scripts', '--prefer-offline'], project);
    for (const name of AUTHOR_PACKAGES) {
      const installed = JSON.parse(readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8')) as PackageManifest;
      assert.equal(installed.version, packed.get(name)!.manifest.version, `${name} came from its tarball`);
    }
    // The two examples build and test side by side: they share nothing but the installed packages.
    await Promise.all(EXAMPLES.map((example) => buildAndTest(project, example)));
  });
});

/** Copies one example channel into the author's project, builds it there and runs its tests under node:test and vitest. */
async function buildAndTest(project: string, example: (typeof EXAMPLES)[number]): Promise<void> {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const dir = join(project, example.dir);
  for (const part of ['src', 'package.json']) cpSync(join(ROOT, 'examples', example.dir, part), join(dir, part), { recursive: true });
  mkdirSync(join(dir, 'test'));
  for (const test of example.tests) cpSync(join(ROOT, 'examples', example.dir, 'test', `${test}.ts`), join(dir, 'test', `${test}.ts`));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  await run(process.execPath, [tsc, '-p', 'tsconfig.json'], dir);

  const testFiles = example.tests.filter((t) => t.endsWith('.test')).map((t) => `dist/test/${t}.js`);
  const conformance = testFiles.find((f) => f.includes('conformance'))!;
  const others = testFiles.filter((f) => f !== conformance);
  if (others.length > 0) {
    const nodeRun = await run(process.execPath, ['--test', '--test-reporter=tap', ...others], dir, AS_TOP_LEVEL);
    assert.match(nodeRun, /^# fail 0$/m, nodeRun);
  }
  const nodeConformance = await run(process.execPath, ['--test', '--test-reporter=tap', conformance], dir, AS_TOP_LEVEL);
  const passed = Number(/^# pass (\d+)$/m.exec(nodeConformance)?.[1]);
  assert.ok(passed > 0, nodeConformance);
  assert.match(nodeConformance, /^# fail 0$/m, nodeConformance);

  // The conformance suite (the testkit's) under vitest: the same tests, registered with vitest's functions.
  writeFileSync(join(dir, 'vitest.config.js'), `export default { test: { include: [${JSON.stringify(conformance)}] } };\n`);
  const report = join(dir, 'vitest.json');
  await run(process.execPath, [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=json', `--outputFile=${report}`], dir, AS_TOP_LEVEL);
  const vitest = JSON.parse(readFileSync(report, 'utf8')) as { numPassedTests: number; numFailedTests: number; numTotalTests: number };
  assert.deepEqual({ passed: vitest.numPassedTests, failed: vitest.numFailedTests }, { passed, failed: 0 }, `${example.dir} under vitest`);
}
