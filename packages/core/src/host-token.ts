/**
 * The token of a host service: a global symbol (`Symbol.for`), so two copies of `@parley/core` still
 * agree, that carries the type of the service it names. The host's dependency-injection container
 * (tsyringe) registers and resolves services under such tokens; a plugin names the ones it needs in
 * its manifest's `deps` and receives them resolved (`PluginContext.deps`).
 */
export type HostToken<T> = symbol & { readonly __service?: T };

/** A plugin's declared dependencies: a member name for each host token it needs. */
export type HostDeps = Readonly<Record<string, HostToken<unknown>>>;

/** What `register` receives for declared {@link HostDeps}: each member resolved to its service. */
export type ResolvedDeps<Deps extends HostDeps> = { readonly [K in keyof Deps]: Deps[K] extends HostToken<infer T> ? T : never };

/** The name of a token in messages (`parley.core.Storage`). */
export function tokenName(token: symbol): string {
  return token.description ?? String(token);
}
