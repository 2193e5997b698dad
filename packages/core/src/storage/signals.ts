/**
 * Short messages among the servers that share one store (several Parley processes on one Redis, or one PostgreSQL schema):
 * a publish reaches every subscription of its topic on every such server, this one included.
 *
 * Delivery is at most once and not stored: a server that is not subscribed, or whose link to the
 * store is down, misses what is published meanwhile. Users therefore keep anything that must not be
 * lost in the store itself and send only wake-ups and ephemeral news through signals; after
 * {@link StorageSignals.onReconnect} fires they re-read the store for what they may have missed.
 */
export interface StorageSignals {
  /**
   * Publishes `message` on `topic` (a name under the store's own key prefix or schema, so deployments
   * that share the store under different prefixes do not hear each other). Answers how many subscribed
   * connections received it (a store that cannot tell per topic answers an upper bound: PostgreSQL
   * counts the deployment's listening connections). Rejects with ServiceUnavailableError while the store is unreachable.
   */
  publish(topic: string, message: string): Promise<number>;
  /**
   * Calls `listener` with every message published on `topic` from now on (resolves once the
   * subscription is active). Answers a function that stops it.
   */
  subscribe(topic: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  /**
   * Calls `listener` each time the subscriptions are active again after the link to the store was
   * lost (messages published meanwhile were missed). Answers a function that removes it.
   */
  onReconnect(listener: () => void): () => void;
}
