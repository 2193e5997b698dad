/**
 * @parley/core — the kernel contracts: domain types (spec section 2), capability interfaces (section
 * 4), the normalized channel events (section 6.3), storage repositories, webhook formats, DI tokens,
 * errors and `definePlugin`.
 */
import 'reflect-metadata';

export * from './capabilities/index.js';
export * from './channel/index.js';
export * from './domain/index.js';
export * from './errors.js';
export * from './logger.js';
export * from './plugin.js';
export * from './plugin-registrar.js';
export * from './plugin-definitions.js';
export * from './outbound/index.js';
export * from './storage/index.js';
export * from './cluster/index.js';
export * from './clock.js';
export * from './tokens.js';
export * from './host-token.js';
export * from './extension/index.js';
export * from './util/index.js';
export * from './webhook/index.js';
export * from './sink/index.js';
