export {
  guardedDispatcher, guardedGet, GuardedGetError, type GuardedGetFailure, type GuardedGetLimits, type GuardedGetResult, type GuardedGetRoute,
} from './guarded-get.js';
export { GuardedFetcher, type Fetched, type GuardedFetcherDeps } from './guarded-fetch.js';
export { parseProxy, proxyTunnel, redactProxy, type ProxyUrl } from './proxy-url.js';
export { httpConnectTunnel, socksTunnel } from './proxy-tunnels.js';
export { CONNECT_TIMEOUT_MS, tunnelConnector, type OpenTunnel } from './tunnel-connector.js';
export { checkProxy, PRIVATE_PROXY, type CheckedProxy, type ProxyGuard } from './proxy-guard.js';
export { systemResolve, type ResolveHost } from './resolve-host.js';
export { DialGuard, type Dial, type DialGuardClient, type DialGuardNetwork, type GuardedProxy } from './dial-guard.js';
