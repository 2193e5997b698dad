export { ParleyServer, type ServerOptions } from './app/parley-server.js';
export type { ServerContext } from './app/server-context.js';
export { loadConfig, ConfigError, DEFAULT_PLUGINS, type ParleyConfig, type PluginEntry } from './config/config.js';
export type { RestoreConfig } from './config/restore-config.js';
export { PluginError, loadPlugins } from './plugins/plugin-host.js';
export { createLogger } from './logging/logger.js';
export { runServerProcess } from './app/run-server.js';
export type { RouteDefinition } from './http/route.js';
export { dashboardFiles, findDashboard, type DashboardFiles } from './http/dashboard.js';
