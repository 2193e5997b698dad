import {
  PRIVATE_URLS_HINT, ServiceUnavailableError, UpstreamError, ValidationError, describeError, type ExternalDatabase, type ExternalDataStore, type Logger,
} from '@parley/core';
import { DialGuard } from '@parley/net';
import { HISTORY_INDEXES, MongoCollections } from './mongo-collections.js';
import { MongoConnection } from './mongo-connection.js';
import { assertMongoTargetsAllowed, validateDbName, validateMongoUri } from './mongo-uri.js';
import { MongoMessageRepository } from './repositories/messages.mongo.js';
import { MongoChatRepository, MongoContactRepository } from './repositories/resources.mongo.js';

/**
 * The history of one instance kept in the operator's own MongoDB (spec 4.1 `POST /{key}/instance/mongodb`):
 * messages, chats and contacts, in collections `messages`, `chats` and `contacts` of `dbName`, with the
 * same documents and semantics as the MongoDB storage (partitioned by `instance`, so one database
 * may serve several instances).
 */
export type ExternalMessageStore = ExternalDataStore;

/** Options of {@link connectExternalDatabase}. */
export interface ExternalDatabaseOptions {
  /** Bound of the connection test and of each later operation, in ms. Default 5000. */
  timeoutMs?: number;
  logger?: Logger;
  /**
   * Host setting `allowPrivateUrls` (`PARLEY_ALLOW_PRIVATE_URLS=1`): the URI may name private hosts,
   * Unix sockets, server-side files and credential-lending mechanisms. Default false.
   */
  allowPrivate?: boolean;
  /**
   * The guard every address is dialled through unless `allowPrivate` (one relay shared by the
   * connections of a plugin); a guard of this connection's own when absent.
   */
  guard?: DialGuard;
}

/**
 * Validates `uri` (`mongodb://` or `mongodb+srv://`) and `dbName`, refuses a URI that points the
 * server at a private network or its own resources unless `allowPrivate` ({@link assertMongoTargetsAllowed};
 * host names are checked again whenever the driver dials them), connects, pings and creates the
 * indexes, then answers the store. Throws ValidationError naming `uri` or `dbName` for malformed
 * input (`body.uri`, `body.dbName`: the REST fields), and UpstreamError (502) when the database cannot be reached or refuses the connection
 * within the timeout; messages carry the URI with its credentials redacted.
 */
export async function connectExternalDatabase(database: ExternalDatabase, options: ExternalDatabaseOptions = {}): Promise<ExternalMessageStore> {
  const uri = validateMongoUri(database.uri, 'body.uri');
  const dbName = validateDbName(database.dbName, 'body.dbName');
  const allowPrivate = options.allowPrivate ?? false;
  await assertMongoTargetsAllowed(uri, allowPrivate, 'body.uri');
  const guard = allowPrivate ? undefined : options.guard ?? new DialGuard();
  const connection = new MongoConnection({ url: uri, dbName, timeoutMs: options.timeoutMs ?? 5000, label: 'external database', ...(guard ? { guard } : {}) }, options.logger);
  try {
    await connection.connect();
    const collections = new MongoCollections('');
    await connection.run((db) => Promise.all([
      collections.messages(db).createIndexes(HISTORY_INDEXES.messages),
      collections.chats(db).createIndexes(HISTORY_INDEXES.chats),
      collections.contacts(db).createIndexes(HISTORY_INDEXES.contacts),
    ]));
    return {
      messages: new MongoMessageRepository(connection, collections),
      chats: new MongoChatRepository(connection, collections),
      contacts: new MongoContactRepository(connection, collections),
      close: () => connection.close(),
    };
  } catch (err) {
    const refused = connection.refusal();
    await connection.close();
    // The deployment itself names a private member (or a seed now resolves to one): no retry helps.
    if (refused) throw new ValidationError(`body.uri names a deployment the server may not reach: ${refused} (${PRIVATE_URLS_HINT})`, { field: 'body.uri' });
    if (err instanceof ServiceUnavailableError) throw new UpstreamError(err.message, { retryable: true });
    // Authentication and permission failures (creating the indexes needs write access).
    throw new UpstreamError(`the external database at ${connection.target} refused the connection: ${describeError(err)}`, { retryable: false });
  }
}
