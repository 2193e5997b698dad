/**
 * The test functions every suite of the testkit registers with: node:test's, or vitest's when the
 * suites run inside a vitest worker (vitest sets `VITEST` in its workers' environment). Authors call
 * `describeChannelConformance(…)` and friends the same way under either runner.
 */

/** What a test body receives; `skip(reason)` marks the test skipped under both runners. */
export interface TestContext {
  skip(reason?: string): void;
}

type Body = (t: TestContext) => unknown;
type Hook = (fn: () => unknown) => void;

/** The functions the suites use, named as node:test names them. */
export interface TestRunner {
  describe(name: string, fn: () => unknown): void;
  it(name: string, fn: Body): void;
  before: Hook;
  after: Hook;
  beforeEach: Hook;
  afterEach: Hook;
}

/**
 * The time limit vitest gives each test and hook of the suites (node:test has none by default):
 * vitest's own defaults (5 s a test, 10 s a hook) are shorter than a conformance run's restart and
 * outage cases, so the suites pass their own.
 */
export const VITEST_TIMEOUT_MS = 120_000;

interface Vitest {
  describe(name: string, fn: () => unknown): void;
  it(name: string, fn: Body, timeout: number): void;
  beforeAll(fn: () => unknown, timeout: number): void;
  afterAll(fn: () => unknown, timeout: number): void;
  beforeEach(fn: () => unknown, timeout: number): void;
  afterEach(fn: () => unknown, timeout: number): void;
}

async function vitestRunner(): Promise<TestRunner> {
  // A specifier in a variable: vitest is an optional peer dependency, present only where it runs.
  const specifier = 'vitest';
  const v = (await import(specifier)) as Vitest;
  const hook = (register: Vitest['beforeAll']): Hook => (fn) => register(fn, VITEST_TIMEOUT_MS);
  return {
    describe: (name, fn) => v.describe(name, fn),
    it: (name, fn) => v.it(name, fn, VITEST_TIMEOUT_MS),
    before: hook(v.beforeAll), after: hook(v.afterAll), beforeEach: hook(v.beforeEach), afterEach: hook(v.afterEach),
  };
}

async function nodeRunner(): Promise<TestRunner> {
  const t = await import('node:test');
  // node:test's declarations want `void | Promise<void>` bodies; what a body returns is ignored either way.
  type NodeFn = () => void | Promise<void>;
  return {
    describe: (name, fn) => void t.describe(name, fn as NodeFn),
    it: (name, fn) => void t.it(name, fn as (t: TestContext) => void | Promise<void>),
    before: (fn) => t.before(fn as NodeFn), after: (fn) => t.after(fn as NodeFn),
    beforeEach: (fn) => t.beforeEach(fn as NodeFn), afterEach: (fn) => t.afterEach(fn as NodeFn),
  };
}

/** The runner the suites register with in this process. */
export const runner: TestRunner = process.env.VITEST ? await vitestRunner() : await nodeRunner();
export const { describe, it, before, after, beforeEach, afterEach } = runner;
