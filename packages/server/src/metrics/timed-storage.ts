import { STORAGE_KEYS, type Storage } from '@parley/core';
import type { FastHistogram } from './fast-metrics.js';

type Method = (...args: unknown[]) => unknown;

/**
 * A stand-in for `target` whose every member reaches `target` itself: methods (own or inherited,
 * `constructor` left out) run with `this` = `target`, other members (fields, getters) are read from
 * it. A prototype link alone would run getters and methods with the wrapper as `this`, which breaks
 * `#private` members. `wrap` may replace a method (the timing below).
 */
function delegate<T extends object>(target: T, wrap: (name: string, method: Method) => Method = (_, method) => method): T {
  const proxy: Record<string, unknown> = {};
  const seen = new Set<string>(['constructor']);
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (seen.has(name)) continue;
      seen.add(name);
      const descriptor = Object.getOwnPropertyDescriptor(o, name)!;
      if (typeof descriptor.value === 'function') {
        const method = wrap(name, (descriptor.value as Method).bind(target));
        Object.defineProperty(proxy, name, { value: method, enumerable: descriptor.enumerable ?? false, configurable: true });
      } else {
        Object.defineProperty(proxy, name, { get: () => (target as Record<string, unknown>)[name], enumerable: descriptor.enumerable ?? false, configurable: true });
      }
    }
  }
  return proxy as T;
}

/**
 * A repository whose every method observes its duration in `histogram` under `repository` and the
 * method name. The series is looked up once per method here, so a call costs two clock reads, one
 * promise chained on the repository's and one observation (the method is bound once, not re-applied
 * through a closure per call). A `finally` there cost two more promises
 * and two more microtask hops before the caller resumed, on each of the ~27 storage calls of a send
 * (bench/RESULTS.md, issue 26).
 */
function timedRepository<T extends object>(repo: T, repository: string, histogram: FastHistogram): T {
  return delegate(repo, (name, method) => {
    const series = histogram.series(repository, name);
    return (...args: unknown[]): unknown => {
      const started = performance.now();
      const result = method(...args);
      if (!(result instanceof Promise)) {
        series.observe((performance.now() - started) / 1e3);
        return result;
      }
      return result.then((value: unknown) => {
        series.observe((performance.now() - started) / 1e3);
        return value;
      }, (err: unknown) => {
        series.observe((performance.now() - started) / 1e3);
        throw err;
      });
    };
  });
}

/**
 * The storage back end with its repository calls timed (`parley_storage_operation_duration_seconds`):
 * every repository of {@link STORAGE_KEYS}, the record store's and the outbox's.
 * Every other member (`name`, `init`, `flush`, `close`, `health`, the optional rate limiter, any a
 * back end adds) goes straight to the back end.
 */
export function timedStorage(base: Storage, histogram: FastHistogram): Storage {
  const timed = delegate(base);
  for (const name of STORAGE_KEYS) Object.defineProperty(timed, name, { value: timedRepository(base[name], name, histogram), enumerable: true });
  return timed;
}
