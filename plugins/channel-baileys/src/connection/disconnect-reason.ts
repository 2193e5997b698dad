import { DisconnectReason } from '@whiskeysockets/baileys';
import { boomStatus } from '../util/errors.js';

const NAMES: Record<number, string> = {
  [DisconnectReason.loggedOut]: 'loggedOut',
  [DisconnectReason.forbidden]: 'forbidden',
  [DisconnectReason.connectionLost]: 'connectionLost',
  [DisconnectReason.multideviceMismatch]: 'multideviceMismatch',
  [DisconnectReason.connectionClosed]: 'connectionClosed',
  [DisconnectReason.connectionReplaced]: 'connectionReplaced',
  [DisconnectReason.badSession]: 'badSession',
  [DisconnectReason.unavailableService]: 'unavailableService',
  [DisconnectReason.restartRequired]: 'restartRequired',
};

/** Code and reason of a closed connection, from the error Baileys attaches to `lastDisconnect`. */
export function disconnectInfo(error: unknown): { code: number; reason: string } {
  const code = boomStatus(error) ?? DisconnectReason.connectionClosed;
  const message = error instanceof Error && error.message ? error.message : undefined;
  const name = NAMES[code];
  return { code, reason: name ?? message ?? `closed with code ${code}` };
}
