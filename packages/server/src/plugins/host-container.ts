import { instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import { tokenName, type HostToken } from '@parley/core';

/** A host service that cannot be resolved: an unknown token, or services that need each other. */
export class HostResolutionError extends Error {}

/**
 * The host's dependency-injection container: tsyringe's, with what the host needs on top — services
 * registered as factories of the services they resolve (built once, at the first resolve), a clear
 * error naming the chain when services need each other, and the set of tokens the server builds
 * from what every plugin registered ({@link composed}), which decides when a plugin needing them
 * registers (see `loadPlugins`).
 */
export class HostContainer {
  /** Tokens whose factories are running, in resolution order (the chain a cycle error names). */
  private readonly resolving: symbol[] = [];
  private readonly composedTokens = new Set<symbol>();

  constructor(private readonly container: DependencyContainer) {}

  /** Registers a service known now (the logger, the clock, the settings, the storage back end). */
  value<T>(token: HostToken<T>, value: T): void {
    this.container.register<T>(token, { useValue: value });
  }

  /**
   * Registers a service the server builds from other services: `create` runs at the first
   * {@link resolve} of `token` (then its answer is kept) and resolves what it needs through `c`.
   * `composed` marks a service built from what every plugin registered (the channels, the send path).
   */
  factory<T>(token: HostToken<T>, create: (c: HostContainer) => T, options: { composed?: boolean } = {}): void {
    if (options.composed) this.composedTokens.add(token);
    this.container.register<T>(token, { useFactory: instanceCachingFactory(() => this.building(token, () => create(this))) });
  }

  /** Whether a service is registered under `token`. */
  has(token: symbol): boolean {
    return this.container.isRegistered(token, true);
  }

  /** Whether `token` names a service the server builds from every plugin's registrations. */
  composed(token: symbol): boolean {
    return this.composedTokens.has(token);
  }

  /** The service of `token`; throws {@link HostResolutionError} for an unknown token or a cycle. */
  resolve<T>(token: HostToken<T>): T {
    if (!this.has(token)) throw new HostResolutionError(`no host service is registered as "${tokenName(token)}"`);
    return this.container.resolve<T>(token);
  }

  private building<T>(token: symbol, create: () => T): T {
    if (this.resolving.includes(token)) {
      const chain = [...this.resolving.slice(this.resolving.indexOf(token)), token].map(tokenName).join(' → ');
      throw new HostResolutionError(`host services need each other: ${chain}`);
    }
    this.resolving.push(token);
    try {
      return create();
    } finally {
      this.resolving.pop();
    }
  }
}
