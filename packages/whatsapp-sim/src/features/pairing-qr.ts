import type { Network } from '../network/network.js';
import type { CompanionDevice } from '../network/model.js';
import { SimError } from '../network/errors.js';
import type { Registrations } from './registration.js';
import { linkDevice } from './linking.js';

const QR_PREFIX = 'https://wa.me/settings/linked_devices#';

/**
 * The phone of `number` scans a QR string as a client showed it (`ref,noiseKey,identityKey,advSecret,platform`,
 * optionally behind Baileys' `https://wa.me/settings/linked_devices#`). The ref must be one the server issued
 * and still valid, and the keys must be the ones that client registered with.
 */
export async function scanQr(network: Network, registrations: Registrations, number: string, qr: string): Promise<CompanionDevice> {
  const account = network.account(number);
  if (typeof qr !== 'string' || qr.length > 2048) throw new SimError(400, 'invalid_qr', 'qr must be the QR string the client showed', { field: 'qr' });
  const parts = (qr.startsWith(QR_PREFIX) ? qr.slice(QR_PREFIX.length) : qr).split(',');
  if (parts.length < 4) throw new SimError(400, 'invalid_qr', 'a QR string has ref, noise key, identity key and adv secret separated by commas', { field: 'qr' });
  const [ref, noiseB64, identityB64, advB64] = parts as [string, string, string, string];
  const registration = registrations.byRef(ref);
  if (!registration) throw new SimError(410, 'qr_expired', 'no client is showing this QR: its ref expired or was never issued', { ref });
  const noise = Buffer.from(noiseB64, 'base64');
  const identity = Buffer.from(identityB64, 'base64');
  const adv = Buffer.from(advB64, 'base64');
  if (!registration.connection.clientStatic?.equals(noise) || !registration.keys.identityKey.equals(identity) || adv.length !== 32) {
    throw new SimError(400, 'qr_mismatch', 'the QR keys do not match the client that holds this ref');
  }
  return linkDevice(network, registrations, registration, account, adv);
}
