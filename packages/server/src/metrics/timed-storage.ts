import type { Storage } from '@parley/core';
import type { FastHistogram } from './fast-metrics.js';

/** The repositories of a {@link Storage} whose calls are timed. */
const REPOSITORIES = ['instances', 'messages', 'chats', 'contacts', 'media', 'authState', 'state', 'deliveries'] as const;

/** Method names of an object and its prototypes (classes keep theirs on the prototype), `constructor` left out. */
function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (name !== 'constructor' && typeof (target as Record<string, unknown>)[name] === 'function') names.add(name);
    }
  }
  return [...names];
}

/**
 * A repository whose every method observes its duration in `histogram` under `repository` and the
 * method name. The series is looked up once per method here, so a call costs two clock reads, a
 * `finally` and one observation. Methods run on the real repository (`this` is never the wrapper); other
 * members are read through the prototype.
 */
function timedRepository<T extends object>(repo: T, repository: string, histogram: FastHistogram): T {
  const timed = Object.create(repo) as Record<string, unknown>;
  for (const name of methodNames(repo)) {
    const method = (repo as Record<string, (...args: unknown[]) => unknown>)[name]!;
    const series = histogram.series(repository, name);
    timed[name] = (...args: unknown[]): unknown => {
      const started = performance.now();
      const result = method.apply(repo, args);
      if (result instanceof Promise) {
        const done = () => series.observe((performance.now() - started) / 1e3);
        return result.finally(done);
      }
      series.observe((performance.now() - started) / 1e3);
      return result;
    };
  }
  return timed as T;
}

/**
 * The storage back end with its repository calls timed (`parley_storage_operation_duration_seconds`).
 * Life-cycle calls (`init`, `flush`, `close`, `health`) and the optional rate limiter go straight
 * to the back end.
 */
export function timedStorage(base: Storage, histogram: FastHistogram): Storage {
  const repositories = Object.fromEntries(REPOSITORIES.map((name) => [name, timedRepository(base[name], name, histogram)]));
  return {
    name: base.name,
    ...(repositories as Pick<Storage, (typeof REPOSITORIES)[number]>),
    init: () => base.init(),
    health: () => base.health(),
    flush: () => base.flush(),
    close: () => base.close(),
    ...(base.rateLimiter ? { rateLimiter: base.rateLimiter.bind(base) } : {}),
  };
}
