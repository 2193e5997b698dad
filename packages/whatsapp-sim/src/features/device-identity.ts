import { Curve, proto, WA_ADV_ACCOUNT_SIG_PREFIX, WA_ADV_DEVICE_SIG_PREFIX } from '@whiskeysockets/baileys';
import type { Account, CompanionDevice } from '../network/model.js';

/** What the phone signs for a new companion: its `ADVDeviceIdentity` and the account signature over it. */
export interface AccountSignedIdentity {
  /** Encoded `ADVDeviceIdentity` (rawId, timestamp, key index). */
  details: Buffer;
  accountSignatureKey: Buffer;
  accountSignature: Buffer;
}

/**
 * The phone signs a companion's identity key under `keyIndex` (WhatsApp's ADV: the account signature is
 * Curve25519 over `WA_ADV_ACCOUNT_SIG_PREFIX ‖ details ‖ companion identity` with the phone's identity key,
 * as Baileys' configureSuccessfulPairing, Utils/validate-connection.js, checks it).
 */
export function signCompanionIdentity(account: Account, companionIdentity: Buffer, keyIndex: number): AccountSignedIdentity {
  const phoneIdentity = account.phone.identity;
  const details = Buffer.from(proto.ADVDeviceIdentity.encode({
    rawId: account.advRawId, timestamp: Math.floor(Date.now() / 1000), keyIndex,
    accountType: proto.ADVEncryptionType.E2EE, deviceType: proto.ADVEncryptionType.E2EE,
  }).finish());
  const accountSignature = Buffer.from(Curve.sign(phoneIdentity.private, Buffer.concat([WA_ADV_ACCOUNT_SIG_PREFIX, details, companionIdentity])));
  return { details, accountSignatureKey: Buffer.from(phoneIdentity.public), accountSignature };
}

/** What the companion's device signature covers: `WA_ADV_DEVICE_SIG_PREFIX ‖ details ‖ companion identity ‖ phone identity`. */
export function deviceSignedMessage(signed: AccountSignedIdentity, companionIdentity: Buffer): Buffer {
  return Buffer.concat([WA_ADV_DEVICE_SIG_PREFIX, signed.details, companionIdentity, signed.accountSignatureKey]);
}

/** Records a new companion of the account under the next device id and key index (which it must carry). */
export function addCompanion(account: Account, device: CompanionDevice): void {
  account.nextDeviceId = Math.max(account.nextDeviceId, device.id + 1);
  account.nextKeyIndex = Math.max(account.nextKeyIndex, device.keyIndex + 1);
  account.companions.set(device.id, device);
}
