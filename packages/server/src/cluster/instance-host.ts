import type { Fence } from '@parley/core';

/** What the node does with the instances it takes and gives up (the server's registry). */
export interface InstanceHost {
  /**
   * Loads an instance whose lease this node now holds, connecting it when it wants a connection; one start
   * of an instance at a time, which must not connect once the node no longer {@link ClusterNode.runs} it under `lease`.
   */
  start(id: string, lease: Fence): Promise<void>;
  /** Stops an instance's channel connections (its lease is lost or handed over). */
  stop(id: string): Promise<void>;
  /**
   * Runs once this node holds a new lease of the instance and before it acts on it: takes over what
   * the previous owner left unfinished (the outbound queue's leased sends). A failure is logged; what
   * it did not take over waits for its own expiry.
   */
  takeOver?(id: string): Promise<void>;
}
