import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import semver from 'semver';
import { ROOT } from '../support/container-image.js';
import { manifestOf, run, workspaceDirs, type PackageManifest } from '../support/packed-packages.js';

/** The dependency members of a manifest that name versions of other workspace packages. */
const RANGES = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

/** A manifest with the members lerna rewrites. */
type Versioned = PackageManifest & Partial<Record<(typeof RANGES)[number], Record<string, string>>>;

/**
 * `npm run release:version` as a release runs it (lerna version: independent versions, exact ranges,
 * no tag, no push), on a copy of the repository's manifests, lockfile and lerna.json in a git
 * repository of its own outside this one, with npm offline: a bump must be resolvable from the
 * workspaces alone, since no package of the new versions is on any registry yet.
 */
describe('release:version (lerna version) on a copy of the workspace manifests', () => {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'parley-release-')));
  const dirs = workspaceDirs().map((dir) => relative(ROOT, dir));
  const git = (args: string[]) => run('git', args, scratch);

  before(async () => {
    for (const file of ['package.json', 'package-lock.json', 'lerna.json', '.npmrc']) copyFileSync(join(ROOT, file), join(scratch, file));
    for (const dir of dirs) {
      mkdirSync(join(scratch, dir), { recursive: true });
      copyFileSync(join(ROOT, dir, 'package.json'), join(scratch, dir, 'package.json'));
    }
    await git(['init', '--quiet']);
    await git(['add', '-A']);
    await git(['-c', 'user.name=release-test', '-c', 'user.email=release@example.invalid', 'commit', '--quiet', '-m', 'manifests']);
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('bumps every package, the exact ranges of its dependants and the lockfile, needing no registry; every peer range still holds', async () => {
    const lerna = join(ROOT, 'node_modules', 'lerna', 'dist', 'cli.js');
    const env = { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
    await run(process.execPath, [lerna, 'version', 'patch', '--yes', '--exact', '--no-git-tag-version', '--no-push', '--loglevel=error'], scratch, env);

    const before = new Map(dirs.map((dir) => [dir, manifestOf(join(ROOT, dir)) as Versioned]));
    const bumped = new Map(dirs.map((dir) => [dir, manifestOf(join(scratch, dir)) as Versioned]));
    const versionOf = new Map([...bumped.values()].map((m) => [m.name, m.version!]));
    const lock = JSON.parse(readFileSync(join(scratch, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
    const wrong: string[] = [];
    for (const dir of dirs) {
      const { name, version } = bumped.get(dir)!;
      if (version !== semver.inc(before.get(dir)!.version!, 'patch')) wrong.push(`${name} is ${version}`);
      if (lock.packages[dir]?.version !== version) wrong.push(`the lockfile has ${name} at ${lock.packages[dir]?.version}`);
      for (const member of RANGES) {
        for (const [dependency, range] of Object.entries(bumped.get(dir)![member] ?? {})) {
          const current = versionOf.get(dependency);
          if (!current) continue;
          if (member === 'peerDependencies' ? !semver.satisfies(current, range) : range !== current) {
            wrong.push(`${name} ${member}.${dependency} is "${range}", ${dependency} is ${current}`);
          }
        }
      }
    }
    assert.deepEqual(wrong, []);
  });
});
