import type { proto } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import { unixNow } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import { LOGIN_RATE_LIMIT, LOGIN_REFUSED, STREAM_ERRORS } from '../verdicts.js';
import { sendInitialHistory } from './history.js';
import type { LoginLimit } from './login-limit.js';
import type { OfflineQueue } from './offline-queue.js';

/** `<stream:error>` for one of the verdicts in STREAM_ERRORS, then the socket closes. */
export function endStream(connection: ClientConnection, verdict: keyof typeof STREAM_ERRORS): void {
  connection.send(STREAM_ERRORS[verdict].node());
  connection.close();
}

/**
 * Login of a linked companion (a `ClientPayload` with `username` and `device`): the device must exist and
 * the handshake must come from the noise key it registered with; then `<success>` and what was stored while it
 * was away (offline-queue.ts). A second socket of the same device replaces the first (440 conflict). A login over
 * the login limit is ended with `<stream:error code="429"/>` (LOGIN_RATE_LIMIT) before anything else.
 */
export function loginFeature(network: Network, limit: LoginLimit, offline: OfflineQueue): Feature {
  const refuse = (connection: ClientConnection) => {
    connection.send({ tag: 'failure', attrs: { reason: LOGIN_REFUSED.value.reason, location: 'sim' } });
    connection.close();
  };
  return {
    login(connection, payload: proto.ClientPayload) {
      if (payload.username === null || payload.username === undefined || payload.devicePairingData) return false;
      if (!limit.admit()) {
        connection.send({ tag: 'stream:error', attrs: { code: String(LOGIN_RATE_LIMIT.value.code) } });
        connection.close();
        return true;
      }
      const number = String(payload.username);
      const device = network.accounts.get(number)?.companions.get(Number(payload.device ?? 0));
      if (!device || !connection.clientStatic?.equals(device.noiseKey)) {
        refuse(connection);
        return true;
      }
      const previous = device.connection;
      device.connection = connection;
      connection.deviceJid = device.jid;
      if (previous && previous !== connection) endStream(previous, 'replaced');
      connection.send({ tag: 'success', attrs: { t: unixNow(), lid: device.lidJid, location: 'sim', creation: String(Math.floor(device.linkedAt.getTime() / 1000)) } });
      offline.start(device);
      if (!device.historySent) {
        device.historySent = true;
        void sendInitialHistory(network, network.accounts.get(number)!, device).catch(() => { device.historySent = false; });
      }
      return true;
    },
    closed(connection) {
      const session = network.session(connection);
      if (session) session.device.connection = undefined;
    },
  };
}
