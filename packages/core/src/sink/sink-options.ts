import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/** TLS options of a broker connection (`tls` of a sink plugin's options). Relative paths resolve against the working directory. */
export interface SinkTlsOptions {
  /** PEM file of the CA(s) to trust instead of the system's. */
  caFile?: string;
  /** PEM client certificate (mutual TLS), with `keyFile`. */
  certFile?: string;
  /** PEM private key of `certFile` (unencrypted). */
  keyFile?: string;
  /** Refuse a broker whose certificate does not verify. Default true. */
  rejectUnauthorized?: boolean;
  /** Server name to verify (SNI), when it differs from the URL's host. */
  servername?: string;
}

/** Options every sink plugin takes beside its broker's own. */
export interface SinkCommonOptions {
  tls?: SinkTlsOptions;
  /** Time a publish may wait for its confirm (or for a connection), in ms. Default 10000. */
  publishTimeoutMs?: number;
  /** Time a connection attempt may take, in ms. Default 5000. */
  connectTimeoutMs?: number;
}

/** JSON Schema properties of {@link SinkCommonOptions}, to spread into a sink plugin's options schema. */
export const sinkCommonOptionProperties = {
  tls: {
    type: 'object',
    additionalProperties: false,
    properties: {
      caFile: { type: 'string', minLength: 1 },
      certFile: { type: 'string', minLength: 1 },
      keyFile: { type: 'string', minLength: 1 },
      rejectUnauthorized: { type: 'boolean' },
      servername: { type: 'string', minLength: 1 },
    },
    dependencies: { certFile: ['keyFile'], keyFile: ['certFile'] },
  },
  publishTimeoutMs: { type: 'integer', minimum: 100, maximum: 600_000 },
  connectTimeoutMs: { type: 'integer', minimum: 100, maximum: 600_000 },
} as const;

/** What Node's `tls.connect` takes from {@link SinkTlsOptions}: the files read. */
export interface SinkTlsSettings {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized?: boolean;
  servername?: string;
}

/**
 * Reads the TLS files of a sink's options (relative paths against the working directory). Throws an Error naming
 * the option and the path when a file cannot be read, so the server refuses to boot with a clear cause.
 */
export function loadSinkTls(tls: SinkTlsOptions | undefined): SinkTlsSettings | undefined {
  if (!tls) return undefined;
  const read = (option: 'caFile' | 'certFile' | 'keyFile'): Buffer | undefined => {
    const path = tls[option];
    if (path === undefined) return undefined;
    const file = isAbsolute(path) ? path : resolve(path);
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(`options.tls.${option}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  };
  const settings: SinkTlsSettings = {};
  const ca = read('caFile');
  const cert = read('certFile');
  const key = read('keyFile');
  if (ca) settings.ca = ca;
  if (cert) settings.cert = cert;
  if (key) settings.key = key;
  if (tls.rejectUnauthorized !== undefined) settings.rejectUnauthorized = tls.rejectUnauthorized;
  if (tls.servername !== undefined) settings.servername = tls.servername;
  return settings;
}

/** Rejects with `message` when `promise` has not settled within `ms` (Infinity: no bound), or at once when `signal` aborts. */
export function withinTime<T>(promise: Promise<T>, ms: number, message: string, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const fail = (error: Error) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    };
    const onAbort = () => fail(new Error('aborted'));
    // setTimeout takes Infinity for 1 ms.
    const timer = Number.isFinite(ms) ? setTimeout(() => fail(new Error(message)), ms) : undefined;
    signal?.addEventListener('abort', onAbort, { once: true });
    promise.then((value) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    }, fail);
  });
}
