import { fileURLToPath } from 'node:url';
import type { PluginEntry } from '@parley/server';

/**
 * The plugin list of the example's tests: the example loaded by path (as an author tests a plugin
 * from its own repository), beside a storage, a main channel for instances to link the bot beside,
 * and the native webhook format.
 */
export function telegramPlugins(apiBaseUrl: string): PluginEntry[] {
  return [
    { package: '@parley/storage-memory' },
    { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
    { package: '@parley/webhook-native' },
    { package: fileURLToPath(new URL('../src/index.js', import.meta.url)), options: { apiBaseUrl } },
  ];
}

/** A 1×1 PNG. */
export const PNG_PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
