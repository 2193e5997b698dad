import { encodeStored, ValidationError } from '@parley/core';
import { BufferJSON } from '@whiskeysockets/baileys';

/** Most key files an imported session may hold (a busy account has a few thousand: prekeys, sessions, sender keys). */
export const MAX_KEY_FILES = 100_000;

/**
 * The key types of Baileys' auth state (`SignalDataTypeMap`, Types/Auth.d.ts), longest first where one
 * starts with another, so a file name matches its own type.
 */
const KEY_TYPES = [
  'sender-key-memory', 'sender-key', 'pre-key', 'session', 'app-state-sync-key', 'app-state-sync-version', 'lid-mapping',
  'device-list', 'tctoken', 'identity-key',
] as const;
const FILE = new RegExp(`^(${KEY_TYPES.join('|')})-(.+)\\.json$`);
const DEVICE_JID = /^\d{5,20}(:\d{1,3})?@s\.whatsapp\.net$/;

/** An imported auth state as storage entries (creds under `creds`/`creds`), and the account it logs in as. */
export interface ImportedSession {
  entries: { category: string; id: string; value: string }[];
  /** `creds.me.id`: the linked device's JID. */
  device: string;
}

/**
 * Reads a Baileys auth state as `useMultiFileAuthState` writes it (Utils/use-multi-file-auth-state.js):
 * `creds.json` and one `<type>-<id>.json` per key, each `JSON.stringify(value, BufferJSON.replacer)`,
 * the file name's `/` written `__` and `:` written `-`. Evolution API keeps its instances so
 * (`useMultiFileAuthState(join(INSTANCE_DIR, instance.name))` without Redis or a database provider), and
 * WAHA's NOWEB engine with its own copy of that function (src/core/engines/noweb/useMultiFileAuthState.ts,
 * same names and encoding) in the session's directory. `body.creds` is the parsed `creds.json`,
 * `body.keys` maps each other file's name to its parsed content. Everything is checked before anything
 * is answered: a ValidationError names the first bad field (`body.creds.noiseKey`, `body.keys["x.json"]`).
 */
export function parseSessionImport(body: { creds: unknown; keys?: Record<string, unknown> }): ImportedSession {
  const creds = revive(body.creds) as Record<string, unknown>;
  checkCreds(creds);
  const names = Object.keys(body.keys ?? {});
  if (names.length > MAX_KEY_FILES) throw new ValidationError(`body.keys holds ${names.length} files; at most ${MAX_KEY_FILES}`);
  const entries: ImportedSession['entries'] = [{ category: 'creds', id: 'creds', value: encodeStored(creds) }];
  for (const name of names) {
    const field = `body.keys[${JSON.stringify(name)}]`;
    const match = FILE.exec(name);
    if (!match) {
      throw new ValidationError(`${field} is not a key file of useMultiFileAuthState (<type>-<id>.json, type one of ${KEY_TYPES.join(', ')}; creds.json goes in body.creds)`);
    }
    const value = body.keys![name];
    if (value === null || value === undefined) throw new ValidationError(`${field} must be the file's JSON content`);
    entries.push({ category: match[1]!, id: originalId(match[1]!, match[2]!), value: encodeStored(revive(value)) });
  }
  return { entries, device: (creds.me as { id: string }).id };
}

/**
 * The key id a file name stands for. `useMultiFileAuthState` writes `/` as `__` (app-state key ids are
 * base64) and `:` as `-`; of the ids that had a `:`, sender keys (`<group>::<user>::<device>`, libsignal's
 * SenderKeyName) are the ones this mapping can undo. Other ids hold no `:`.
 */
function originalId(type: string, id: string): string {
  const unslashed = id.replace(/__/g, '/');
  return type === 'sender-key' ? unslashed.replace(/--/g, '::') : unslashed;
}

/** JSON with Buffers as BufferJSON writes them (`{ type: 'Buffer', data }`), revived. */
function revive(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), BufferJSON.reviver);
}

function checkCreds(creds: Record<string, unknown>): void {
  if (typeof creds !== 'object' || creds === null || Array.isArray(creds)) throw new ValidationError('body.creds must be the JSON object of creds.json');
  for (const member of ['noiseKey', 'signedIdentityKey', 'pairingEphemeralKeyPair']) keyPair(creds[member], `body.creds.${member}`);
  const signed = creds.signedPreKey as { keyPair?: unknown; signature?: unknown; keyId?: unknown } | undefined;
  if (typeof signed !== 'object' || signed === null) throw new ValidationError('body.creds.signedPreKey must be an object {keyPair, signature, keyId}');
  keyPair(signed.keyPair, 'body.creds.signedPreKey.keyPair');
  bytes(signed.signature, 64, 'body.creds.signedPreKey.signature');
  integer(signed.keyId, 'body.creds.signedPreKey.keyId', 0, 0xffffff);
  integer(creds.registrationId, 'body.creds.registrationId', 0, 0x3fff);
  if (typeof creds.advSecretKey !== 'string' || Buffer.from(creds.advSecretKey, 'base64').length !== 32) {
    throw new ValidationError('body.creds.advSecretKey must be the base64 of 32 bytes');
  }
  const me = creds.me as { id?: unknown } | undefined;
  if (typeof me?.id !== 'string' || !DEVICE_JID.test(me.id)) {
    throw new ValidationError('body.creds.me.id must be the linked device\'s JID (<number>:<device>@s.whatsapp.net): a session that never linked cannot be imported');
  }
  // The protobuf's own toJSON runs before BufferJSON's replacer, so its bytes are base64 strings in the file.
  const account = creds.account as { details?: unknown; accountSignature?: unknown } | undefined;
  const filled = (value: unknown) => value instanceof Uint8Array ? value.length > 0 : typeof value === 'string' && Buffer.from(value, 'base64').length > 0;
  if (typeof account !== 'object' || account === null || !filled(account.details) || !filled(account.accountSignature)) {
    throw new ValidationError('body.creds.account must be the phone\'s signed device identity {details, accountSignature, …}: a session that never linked cannot be imported');
  }
  for (const member of ['nextPreKeyId', 'firstUnuploadedPreKeyId']) integer(creds[member], `body.creds.${member}`, 0, 0xffffff);
}

function keyPair(value: unknown, field: string): void {
  const pair = value as { private?: unknown; public?: unknown } | undefined;
  if (typeof pair !== 'object' || pair === null) throw new ValidationError(`${field} must be a key pair {private, public}`);
  bytes(pair.private, 32, `${field}.private`);
  bytes(pair.public, 32, `${field}.public`);
}

function bytes(value: unknown, length: number, field: string): void {
  if (!(value instanceof Uint8Array) || value.length !== length) {
    throw new ValidationError(`${field} must be ${length} bytes, written as BufferJSON writes them ({"type":"Buffer","data":"<base64>"})`);
  }
}

function integer(value: unknown, field: string, min: number, max: number): void {
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) throw new ValidationError(`${field} must be an integer from ${min} to ${max}`);
}
