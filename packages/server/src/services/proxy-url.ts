import { assertUrlAllowed } from '@parley/core';

/** Validates a proxy URL: http, https, socks4 or socks5, with optional credentials, not private unless allowed. */
export async function assertProxyUrl(proxy: string, allowPrivate: boolean): Promise<URL> {
  return assertUrlAllowed(proxy, { field: 'body.proxy', protocols: ['http', 'https', 'socks', 'socks4', 'socks5', 'socks5h'], allowPrivate });
}
