import { Tokens, tokenName, type HostDeps, type Logger, type PluginManifest, type ResolvedDeps } from '@parley/core';
import type { HostContainer } from './host-container.js';

/** A plugin that could not be loaded, validated or registered; the server refuses to start. */
export class PluginError extends Error {}

/**
 * When a plugin can register, from the host services its `deps` name: at once (`boot`: the logger,
 * the clock, the settings), once the storage plugin registered (`storage`), or once the server is
 * composed from every plugin's registrations (`composed`: the channels, the send path).
 */
export type PluginPhase = 'boot' | 'storage' | 'composed';

const PHASES: readonly PluginPhase[] = ['boot', 'storage', 'composed'];

/** What a composed service is built from: every plugin's registrations but event subscribers. */
const COMPOSING = ['channels', 'formats', 'storage', 'records', 'outbox', 'connectors', 'sinks'] as const;

/**
 * The phase of a plugin (see {@link PluginPhase}). Refuses, naming the plugin and the member, a
 * `deps` member that is no host token, a token the host does not know, and a cycle: a storage plugin
 * needing the storage, or a plugin needing a composed service while providing what it is composed of.
 */
export function pluginPhase(manifest: PluginManifest, host: HostContainer): PluginPhase {
  const name = manifest.name;
  let phase: PluginPhase = 'boot';
  const later = (next: PluginPhase) => {
    if (PHASES.indexOf(next) > PHASES.indexOf(phase)) phase = next;
  };
  for (const [member, token] of Object.entries(manifest.deps ?? {})) {
    if (typeof token !== 'symbol') throw new PluginError(`plugin ${name}: deps.${member} is not a host token (one of Tokens of @parley/core)`);
    const service = tokenName(token);
    if (token === Tokens.Storage) {
      const half = (['storage', 'records', 'outbox'] as const).find((what) => manifest.provides[what] === true);
      if (half) {
        const provided = half === 'storage' ? 'the storage back end' : half === 'records' ? 'composed of the record store' : 'composed of the outbox';
        throw new PluginError(`plugin ${name}: dependency cycle: deps.${member} needs ${service}, ${provided} this plugin provides`);
      }
      later('storage');
    } else if (host.composed(token)) {
      const provided = COMPOSING.filter((what) => {
        const value = manifest.provides[what];
        return Array.isArray(value) ? value.length > 0 : value === true;
      });
      if (provided.length > 0) {
        throw new PluginError(`plugin ${name}: dependency cycle: deps.${member} needs ${service}, which the server builds from every plugin's `
          + `channels, formats, storage, connectors and sinks, this plugin's ${provided.join(', ')} among them; a plugin needing it may provide only event subscribers`);
      }
      later('composed');
    } else if (!host.has(token)) {
      throw new PluginError(`plugin ${name}: deps.${member} needs ${service}, which this server does not provide`);
    }
  }
  return phase;
}

/** The plugin's `deps` resolved from the container; the logger is a child bound to the plugin's name. */
export function resolvedDeps(manifest: PluginManifest, host: HostContainer, logger: Logger): ResolvedDeps<HostDeps> {
  const deps = manifest.deps ?? {};
  const resolved: Record<string, unknown> = {};
  for (const [member, token] of Object.entries(deps)) {
    try {
      resolved[member] = token === Tokens.Logger ? logger : host.resolve(token);
    } catch (err) {
      throw new PluginError(`plugin ${manifest.name}: deps.${member} (${tokenName(token)}) could not be resolved: ${(err as Error).message}`);
    }
  }
  return resolved;
}
