import type { AuthenticationCreds, WASocket } from '@whiskeysockets/baileys';

/**
 * Keeps a socket offline when it should be. Baileys 7.0.0-rc14 announces the push name on every
 * `creds.update` whose `me.name` differs from the stored one (Socket/socket.js): a partial update — the
 * pre-keys sent with a retry receipt, a processed history notification, an account sync — carries no
 * `me`, so it sends `<presence/>` with no type, which WhatsApp reads as available. An instance kept
 * offline (`markOnlineOnConnect` false, or presence `unavailable`) was so marked online on ordinary key
 * churn, and the phone stops getting notifications while its account is online (Baileys issue #2627,
 * PRs #2740 and #2789). Here a partial update gets the stored name before Baileys' handler compares it,
 * so only a real change of name is announced.
 */
export function announceOnlyNameChanges<S extends Pick<WASocket, 'ev' | 'authState'>>(socket: S): S {
  const ev = socket.ev as { emit(event: string, data: unknown): boolean };
  const emit = ev.emit.bind(ev);
  ev.emit = (event, data) => emit(event, event === 'creds.update' ? withStoredName(socket.authState.creds, data as Partial<AuthenticationCreds>) : data);
  return socket;
}

function withStoredName(creds: AuthenticationCreds, update: Partial<AuthenticationCreds>): Partial<AuthenticationCreds> {
  const name = creds.me?.name;
  if (typeof name !== 'string' || !update || typeof update !== 'object' || typeof update.me?.name === 'string') return update;
  return { ...update, me: { ...creds.me!, ...update.me, name } };
}
