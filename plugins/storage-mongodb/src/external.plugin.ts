import { definePlugin, type ExternalDataConnector } from '@parley/core';
import { DialGuard } from '@parley/net';
import { connectExternalDatabase } from './external-database.js';

/** Options of the external-database extension. */
export interface ExternalMongoOptions {
  /** Bound of the connection test and of each later operation, in ms. */
  timeoutMs?: number;
}

/**
 * `@parley/storage-mongodb/external`: lets instances attach their own MongoDB with
 * `POST /{key}/instance/mongodb` (their messages, chats and contacts are kept there), whatever the
 * server's storage back end is.
 */
export default definePlugin<ExternalMongoOptions>({
  name: '@parley/storage-mongodb/external',
  kind: 'extension',
  provides: { connectors: ['mongodb'] },
  coreVersion: '^0.1.0',
  optionsSchema: {
    type: 'object', additionalProperties: false,
    properties: { timeoutMs: { type: 'integer', minimum: 100, maximum: 60000, default: 5000 } },
  },
  register({ connectors, options, logger, host }) {
    // One relay for every external database of this server: it listens while one is connected.
    const guard = host.allowPrivateUrls ? undefined : new DialGuard();
    const connector: ExternalDataConnector = {
      kind: 'mongodb',
      // The URI comes from an instance key holder: private hosts only where the operator allows private URLs.
      connect: (database) => connectExternalDatabase(database, {
        timeoutMs: options.timeoutMs, logger: logger.child({ external: 'mongodb' }), allowPrivate: host.allowPrivateUrls, ...(guard ? { guard } : {}),
      }),
    };
    connectors.add(connector);
  },
});
