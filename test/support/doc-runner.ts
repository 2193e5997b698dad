import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { missingOutput, type Guide } from './doc-examples.js';

/**
 * Guides run inside the repository (under test/dist, ignored by git), so that their scripts import
 * the workspace's packages (`standardwebhooks`, `eventsource`, `ws`) as a reader's project would.
 */
const RUN_ROOT = fileURLToPath(new URL('../', import.meta.url));
const MARK = '@@parley-guide-step';

/** What a guide's shell gets: the variables the guides define in Getting started, and free ports. */
export interface GuideEnv {
  /** The server's base URL (the guides' `B`). */
  B: string;
  /** The admin token (the guides' `T`). */
  T: string;
  [name: string]: string;
}

/** How one run step went. */
export interface StepResult {
  line: number;
  output: string;
}

/**
 * Runs a guide's examples as a reader would: its files saved in a fresh directory, its shell blocks in
 * order in one `bash -eo pipefail` there (so a variable set by one block serves the next), with `env`.
 * Resolves once every block ran and each block's output shows its expected output; rejects naming the
 * guide's line otherwise. Processes a block left in the background are killed with the shell's group
 * at the end. Bounded by `timeoutMs` in all.
 */
export async function runGuide(guide: Guide, env: GuideEnv, timeoutMs = 180_000): Promise<StepResult[]> {
  const dir = mkdtempSync(join(RUN_ROOT, `guide-${guide.name.replace(/\//g, '-')}-`));
  try {
    const runs = guide.steps.filter((s) => s.kind === 'run');
    for (const step of guide.steps) if (step.kind === 'file') writeFileSync(join(dir, step.name), step.code);
    const script = runs.map((s, i) => `printf '\\n${MARK} ${i}@@\\n'\n${s.code}\n`).join('') + `printf '\\n${MARK} end@@\\n'\n`;
    const { stdout, stderr, code } = await runShell(script, dir, env, timeoutMs);
    const parts = stdout.split(new RegExp(`\\n${MARK} (\\d+|end)@@\\n`));
    // parts: [before, "0", out0, "1", out1, …, "end", after]
    const outputs = new Map<string, string>();
    for (let i = 1; i + 1 < parts.length; i += 2) outputs.set(parts[i]!, parts[i + 1]!);
    // A block finished when the next one's mark (or the end mark) was printed.
    const failedAt = runs.findIndex((_, i) => !outputs.has(i + 1 < runs.length ? String(i + 1) : 'end'));
    if (code !== 0 || failedAt !== -1) {
      const at = failedAt === -1 ? runs.length - 1 : failedAt;
      throw new Error(`${guide.name}.md:${runs[at]!.line}: the block failed (exit ${code})\n--- its output:\n${outputs.get(String(at)) ?? ''}\n--- stderr:\n${stderr.slice(-4000)}`);
    }
    return runs.map((step, i) => {
      const output = outputs.get(String(i)) ?? '';
      const missing = step.expect === undefined ? undefined : missingOutput(step.expect, output);
      if (missing !== undefined) {
        throw new Error(`${guide.name}.md:${step.line}: the output lacks the documented line\n  ${missing}\n--- the block printed:\n${output}\n--- stderr:\n${stderr.slice(-4000)}`);
      }
      return { line: step.line, output };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `script` in bash in its own process group, which is killed when it ends or times out. */
function runShell(script: string, cwd: string, env: GuideEnv, timeoutMs: number): Promise<{ stdout: string; stderr: string; code: number | string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-eo', 'pipefail', '-c', script], {
      cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      // The node running the tests (a supported one) comes first on PATH, as after `nvm use`.
      env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? cwd, LANG: 'C.UTF-8', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
    child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch { /* the group is gone */ }
    };
    const timer = setTimeout(() => {
      stderr += `\n[killed: the guide ran longer than ${timeoutMs} ms]`;
      killGroup();
    }, timeoutMs);
    // The shell's exit ends its background processes, which would otherwise hold its pipes open.
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      killGroup();
      child.once('close', () => resolve({ stdout, stderr, code: code ?? signal ?? 'unknown' }));
    });
  });
}
