import { ConflictError, type ChannelContext } from '@parley/core';
import { loadStorageAuthState, type StorageAuthState } from '../auth/storage-auth-state.js';

/** Raised to a waiting `connect()` when the stored session turned out to be logged out. */
export class SessionLoggedOut extends ConflictError {
  constructor() {
    super('the WhatsApp session was logged out; connect again to pair', 'logged_out');
  }
}

/**
 * The Baileys session (creds and signal keys) of one instance: loaded once from storage, kept across
 * sockets, deleted on logout. A new socket never starts from creds a logout is still deleting.
 */
export class Session {
  private auth: StorageAuthState | null = null;
  private clearing: Promise<void> | null = null;

  constructor(
    private readonly context: ChannelContext,
    private readonly keyCacheSize: number,
  ) {}

  /** The loaded session, if any. */
  current(): StorageAuthState | null {
    return this.auth;
  }

  /** The session, loaded from storage on first use (after a running deletion finished). */
  async load(): Promise<StorageAuthState> {
    if (this.clearing) await this.clearing;
    this.auth ??= await loadStorageAuthState(this.context.storage.authState, this.context.instanceId, this.keyCacheSize);
    return this.auth;
  }

  /** Deletes the session from storage, then runs `after` (clearing what else the instance keeps). */
  async clear(after: () => Promise<void>): Promise<void> {
    const auth = this.auth;
    this.auth = null;
    const { storage, instanceId } = this.context;
    const clearing = (async () => {
      if (auth) await auth.clear();
      else await storage.authState.clear(instanceId);
      await after();
    })();
    this.clearing = clearing;
    try {
      await clearing;
    } finally {
      if (this.clearing === clearing) this.clearing = null;
    }
  }

  /**
   * Replaces the stored session with an imported one (see auth/session-import.ts): the old creds and keys
   * are deleted, the new ones written in one atomic write, and the next socket loads them.
   */
  async replace(entries: { category: string; id: string; value: string }[]): Promise<void> {
    await this.clear(async () => undefined);
    await this.context.storage.authState.set(this.context.instanceId, entries);
  }

  /**
   * True once a phone linked this session. Baileys sets `creds.account` when pairing succeeds
   * (Utils/validate-connection.js `configureSuccessfulPairing`); `creds.registered` is no sign of it,
   * rc14 sets it only at the end of a pairing-code link, never for a QR scan.
   */
  paired(): boolean {
    return this.auth?.state.creds.account != null;
  }

  /**
   * Forgets a pairing that never finished, keeping the keys. Baileys' `requestPairingCode` stores the
   * number as `creds.me` before the phone confirms anything (Socket/socket.js); a socket started
   * with that `me` logs in (Socket/socket.js `validateConnection`, `generateLoginNode`) instead of
   * showing a QR, and WhatsApp refuses the login of a number that never linked. Answers whether
   * there was one.
   */
  async forgetPendingPairing(): Promise<boolean> {
    const auth = this.auth;
    const creds = auth?.state.creds;
    if (!auth || !creds || this.paired() || !creds.me) return false;
    delete creds.me;
    delete creds.pairingCode;
    await auth.saveCreds();
    return true;
  }
}
