/** A device's public Signal keys as the server keeps them to hand out in key bundles. */
export interface DeviceKeys {
  registrationId: number;
  identityKey: Buffer;
  signedPreKey: { id: number; publicKey: Buffer; signature: Buffer };
  /** One-time prekeys not yet handed out, by id; each is given to one requester only. */
  preKeys: Map<number, Buffer>;
}
