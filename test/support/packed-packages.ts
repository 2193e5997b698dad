import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './container-image.js';

/** What `npm pack --json` reports of one package. */
export interface PackedPackage {
  name: string;
  version: string;
  filename: string;
  files: { path: string }[];
}

/** A workspace package as its package.json declares it. */
export interface PackageManifest {
  name: string;
  version?: string;
  private?: boolean;
  license?: string;
  type?: string;
  main?: string;
  types?: string;
  files?: string[];
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** Runs a command to its end and answers its output; a non-zero exit fails the test with what it printed. */
export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString(); });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${command} ${args.join(' ')} (in ${cwd}) exited with ${code}:\n${out}\n${err}`));
    });
  });
}

/** npm: the one running this test under `npm test` (`npm_execpath`), else the `npm` on PATH. */
export function npm(args: string[], cwd: string): Promise<string> {
  const flags = [...args, '--no-audit', '--no-fund', '--loglevel=error'];
  const cli = process.env.npm_execpath;
  return cli && /npm-cli\.js$/.test(cli) ? run(process.execPath, [cli, ...flags], cwd) : run('npm', flags, cwd);
}

/** Every workspace directory of the repository (the root package.json's `workspaces`, one `*` level or a directory). */
export function workspaceDirs(): string[] {
  const { workspaces } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  return workspaces.flatMap((glob) => (glob.endsWith('/*')
    ? readdirSync(join(ROOT, glob.slice(0, -2))).map((name) => join(ROOT, glob.slice(0, -2), name))
    : [join(ROOT, glob)])).filter((dir) => existsSync(join(dir, 'package.json')));
}

/**
 * The directories of the packages lerna publishes: the workspaces (lerna.json names no `packages`, so
 * lerna versions every workspace, the private ones too), without private packages.
 */
export function publishableDirs(): string[] {
  return workspaceDirs().filter((dir) => !manifestOf(dir).private);
}

/** The package.json of a workspace directory. */
export function manifestOf(dir: string): PackageManifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageManifest;
}

/** Every file an `exports` map (or `main`/`types`) points at: strings and condition objects, nested. */
export function exportTargets(manifest: PackageManifest): string[] {
  const targets: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') targets.push(value.replace(/^\.\//, ''));
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(manifest.exports);
  for (const entry of [manifest.main, manifest.types]) if (entry) walk(entry);
  return targets;
}
