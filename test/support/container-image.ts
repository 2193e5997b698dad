import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnNode, type NodeProcess } from '@parley/testkit';
import { parse } from 'yaml';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The directory the image's build stage copies into the image: `PARLEY_IMAGE_DIR` when CI built it
 * already (`.ci/run`), else built now with `scripts/build-image.sh --reuse` from this checkout into a
 * temporary directory that `remove` deletes.
 */
export function imageDir(): { dir: string; remove(): void } {
  if (process.env.PARLEY_IMAGE_DIR) return { dir: process.env.PARLEY_IMAGE_DIR, remove: () => undefined };
  const parent = mkdtempSync(join(tmpdir(), 'parley-image-'));
  const dir = join(parent, 'app');
  const built = spawnSync('bash', [join(ROOT, 'scripts', 'build-image.sh'), '--reuse', dir], { cwd: ROOT, encoding: 'utf8' });
  const remove = () => rmSync(parent, { recursive: true, force: true });
  if (built.status !== 0) remove();
  assert.equal(built.status, 0, `scripts/build-image.sh failed:\n${built.stdout}\n${built.stderr}`);
  return { dir, remove };
}

/** The runtime stage of the Dockerfile: its environment, user, volumes, command and health check. */
export interface RuntimeStage {
  env: Record<string, string>;
  user: string;
  volumes: string[];
  cmd: string[];
  healthcheck: string[];
}

/** Reads the last stage of the repository's Dockerfile (continuation lines joined, comments left out). */
export function dockerfileRuntime(): RuntimeStage {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stage = lines.slice(lines.findLastIndex((l) => l.startsWith('FROM ')));
  const argsOf = (instruction: string) => stage.filter((l) => l.startsWith(`${instruction} `)).map((l) => l.slice(instruction.length + 1).trim());
  const env: Record<string, string> = {};
  for (const line of argsOf('ENV')) for (const m of line.matchAll(/(\w+)=(\S+)/g)) env[m[1]!] = m[2]!;
  const [healthcheck] = argsOf('HEALTHCHECK');
  assert.ok(healthcheck, 'the runtime stage has a HEALTHCHECK');
  return {
    env,
    user: argsOf('USER').at(-1) ?? 'root',
    volumes: argsOf('VOLUME').flatMap((v) => JSON.parse(v) as string[]),
    cmd: JSON.parse(argsOf('CMD').at(-1)!) as string[],
    healthcheck: JSON.parse(healthcheck.slice(healthcheck.indexOf('CMD ') + 4)) as string[],
  };
}

/** A compose service, as far as the tests read it. */
export interface ComposeService {
  build?: string;
  image?: string;
  ports?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
}

/**
 * A compose file's services with its variables resolved from `vars` as Compose does, in the parsed
 * values: `${X:-default}`, `${X:?error}` (unset or empty: the error is thrown), `${X}`; an environment
 * entry without a value takes the variable of the same name, and is left out when that is unset.
 */
export function composeServices(file: string, vars: Record<string, string>): Record<string, ComposeService> {
  const interpolate = (text: string) => text.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, op?: string, arg?: string) => {
    const value = vars[name];
    if (value) return value;
    if (op === '?') throw new Error(`${file}: ${arg}`);
    return op === '-' ? arg! : '';
  });
  const resolve = (value: unknown): unknown => {
    if (typeof value === 'string') return interpolate(value);
    if (Array.isArray(value)) return value.map(resolve);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
    return value;
  };
  const { services } = parse(readFileSync(join(ROOT, file), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
  return Object.fromEntries(Object.entries(services).map(([name, service]) => {
    const resolved = resolve(service) as ComposeService;
    if (service.environment) {
      resolved.environment = Object.fromEntries(Object.entries(service.environment).flatMap(([key, value]) => {
        if (value !== null) return [[key, interpolate(String(value))]];
        return vars[key] !== undefined ? [[key, vars[key]]] : [];
      }));
    }
    return [name, resolved];
  }));
}

/** The image's command (`CMD ["node", …]`) in `dir` with only `env` in its environment. */
export function runImageCommand(dir: string, stage: RuntimeStage, env: Record<string, string>): NodeProcess {
  const [node, script, ...args] = stage.cmd;
  assert.equal(node, 'node');
  return spawnNode(script!, args, { cwd: dir, env });
}

/** Runs the image's HEALTHCHECK command until it succeeds (bounded: 30 s), as Docker would. */
export async function untilHealthy(dir: string, stage: RuntimeStage, env: Record<string, string>, server: NodeProcess): Promise<void> {
  const [node, ...args] = stage.healthcheck;
  assert.equal(node, 'node');
  for (let i = 0; i < 120; i++) {
    const check = spawnNode(args[0]!, args.slice(1), { cwd: dir, env });
    if ((await check.exited).code === 0) return;
    if (server.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.fail(`the HEALTHCHECK never passed\nstdout: ${server.stdout()}\nstderr: ${server.stderr()}`);
}

/** Stops a server as `docker stop` does (SIGTERM) and answers its exit code. */
export async function dockerStop(server: NodeProcess): Promise<number | null> {
  server.child.kill('SIGTERM');
  return (await server.exited).code;
}
