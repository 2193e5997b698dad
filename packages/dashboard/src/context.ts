import type { ParleyClient } from '@parley/client';
import type { LiveHub } from './live-hub.js';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/** What every view of a signed-in session shares. */
export interface Session {
  client: ParleyClient;
  /** The event stream every view shares. */
  live: LiveHub;
  /** Signs out with a message (a 401 answer: the token was changed on the server). */
  signOut(reason?: string): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in session');
  return session;
}
