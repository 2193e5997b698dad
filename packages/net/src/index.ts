export {
  guardedGet, GuardedGetError, systemResolve, type GuardedGetFailure, type GuardedGetLimits, type GuardedGetResult, type GuardedGetRoute, type ResolveHost,
} from './guarded-get.js';
export { GuardedFetcher, type Fetched, type GuardedFetcherDeps } from './guarded-fetch.js';
export { parseProxy, proxyTunnel, redactProxy, type ProxyUrl } from './proxy-url.js';
export { httpConnectTunnel, socksTunnel } from './proxy-tunnels.js';
export { CONNECT_TIMEOUT_MS, tunnelConnector, type OpenTunnel } from './tunnel-connector.js';
