import type { ExternalDatabase } from '../domain/instance.js';
import type { ChatRepository, ContactRepository, MessageRepository } from './repositories.js';

/**
 * An external database attached to one instance (spec 4.1 `POST /{key}/instance/mongodb`): from the
 * moment it is attached, that instance's messages, chats and contacts are read from and written to
 * it instead of the main storage.
 */
export interface ExternalDataStore {
  readonly messages: MessageRepository;
  readonly chats: ChatRepository;
  readonly contacts: ContactRepository;
  /** Closes the connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * Connects external databases of one kind (`mongodb`): the extension point behind spec 4.1's
 * `POST /{key}/instance/mongodb`. A plugin adds it with `connectors.add` and declares its kind in
 * `provides.connectors`; a server has at most one (the route answers 422 without one).
 */
export interface ExternalDataConnector {
  /** Database kind, the last path segment of the REST route (`mongodb`). */
  readonly kind: string;
  /**
   * Validates the settings (ValidationError naming `body.uri` / `body.dbName`) and tests the
   * connection with a bounded time-out (UpstreamError with credentials redacted when it fails).
   */
  connect(database: ExternalDatabase): Promise<ExternalDataStore>;
}
