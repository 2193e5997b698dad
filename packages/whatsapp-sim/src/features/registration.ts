import { randomBytes } from 'node:crypto';
import { proto } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import { SERVER, stanzaId } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import type { DeviceKeys } from '../network/device-keys.js';
import { QR_REFS } from '../verdicts.js';

/** What a client announced in `companion_hello` to be linked by an 8-character code instead of a QR. */
export interface PairingCodeRequest {
  /** The number the client says it belongs to (digits). */
  number: string;
  /** `salt(32) ‖ iv(16) ‖ AES-CTR(code key, companion ephemeral public key)` as sent. */
  wrappedEphemeral: Buffer;
  platformId: string;
  platformDisplay: string;
  /** The server's ref for this request, echoed in later stages. */
  ref: string;
  /** Set while the phone waits for the client's `companion_finish`. */
  onFinish?: (finish: BinaryNode) => void;
}

/** A client that connected without credentials and waits to be linked, by QR or by pairing code. */
export interface Registration {
  connection: ClientConnection;
  keys: DeviceKeys;
  platform: string;
  refs: Array<{ ref: string; expiresAt: number }>;
  /** Set by the pairing-code feature once the client sent `companion_hello`. */
  pairingCode?: PairingCodeRequest;
  /** Set while a phone is linking it, so it is linked once. */
  linking: boolean;
  expiry: NodeJS.Timeout;
}

export interface RefTimings {
  count: number;
  firstMs: number;
  nextMs: number;
}

/** Grace after the last ref expired before the server drops a registration nobody linked. */
const EXPIRY_GRACE_MS = 5_000;

function bigEndian(bytes: Uint8Array | null | undefined): number {
  return bytes ? Buffer.from(bytes).readUIntBE(0, bytes.length) : 0;
}

/** Registrations awaiting a link, by connection. */
export class Registrations {
  private readonly open = new Map<ClientConnection, Registration>();
  constructor(readonly timings: RefTimings = QR_REFS.value) {}

  all(): Registration[] {
    return [...this.open.values()];
  }

  get(connection: ClientConnection): Registration | undefined {
    return this.open.get(connection);
  }

  /** The registration a QR ref belongs to while that ref is still valid. */
  byRef(ref: string, now = Date.now()): Registration | undefined {
    return this.all().find((r) => r.refs.some((x) => x.ref === ref && x.expiresAt > now));
  }

  add(registration: Omit<Registration, 'expiry' | 'refs' | 'linking'>): Registration {
    const { count, firstMs, nextMs } = this.timings;
    const start = Date.now();
    const refs = Array.from({ length: count }, (_, i) => ({
      ref: `2@${randomBytes(24).toString('base64')}`, expiresAt: start + firstMs + i * nextMs,
    }));
    const lifetime = firstMs + (count - 1) * nextMs + EXPIRY_GRACE_MS;
    const entry: Registration = { ...registration, refs, linking: false, expiry: setTimeout(() => entry.connection.close(), lifetime) };
    this.open.set(registration.connection, entry);
    return entry;
  }

  remove(connection: ClientConnection): void {
    const entry = this.open.get(connection);
    if (!entry) return;
    clearTimeout(entry.expiry);
    this.open.delete(connection);
  }
}

/**
 * A client without credentials sends a `ClientPayload` with `devicePairingData` (its registration id,
 * identity and signed prekey); the server answers with `<pair-device>` carrying the QR refs, which the client
 * shows one after another (Baileys rotates them itself and ends with 408 "QR refs attempts ended").
 */
export function registrationFeature(network: Network, registrations: Registrations): Feature {
  return {
    login(connection, payload) {
      const data = payload.devicePairingData;
      if (!data) return false;
      if (!data.eIdent || data.eIdent.length !== 32 || !data.eSkeyVal || !data.eSkeySig) {
        connection.close();
        return true;
      }
      const props = data.deviceProps ? proto.DeviceProps.decode(data.deviceProps) : undefined;
      const platformType = props?.platformType !== undefined && props.platformType !== null ? proto.DeviceProps.PlatformType[props.platformType] : undefined;
      const registration = registrations.add({
        connection,
        keys: {
          registrationId: bigEndian(data.eRegid),
          identityKey: Buffer.from(data.eIdent),
          signedPreKey: { id: bigEndian(data.eSkeyId), publicKey: Buffer.from(data.eSkeyVal), signature: Buffer.from(data.eSkeySig) },
          preKeys: new Map(),
        },
        platform: [props?.os, platformType].filter(Boolean).join(' / ') || 'unknown',
      });
      void network.query(connection, {
        tag: 'iq', attrs: { from: SERVER, type: 'set', id: stanzaId(), xmlns: 'md' },
        content: [{ tag: 'pair-device', attrs: {}, content: registration.refs.map(({ ref }) => ({ tag: 'ref', attrs: {}, content: Buffer.from(ref) })) }],
      }).catch(() => connection.close());
      return true;
    },
    closed(connection) {
      registrations.remove(connection);
    },
  };
}
