import { MongoClient, MongoParseError } from 'mongodb';
import { isIP } from 'node:net';
import { assertUrlAllowed, PRIVATE_URLS_HINT, ValidationError, redactUrlCredentials } from '@parley/core';

/** Characters MongoDB refuses in database names. */
const INVALID_DB_NAME = /[/\\. "$*<>:|?\0]/;

/**
 * Checks a connection string: scheme `mongodb://` or `mongodb+srv://`, and parseable by the driver.
 * Throws ValidationError naming `field`; the message never repeats the credentials.
 */
export function validateMongoUri(uri: unknown, field = 'uri'): string {
  if (typeof uri !== 'string' || !/^mongodb(\+srv)?:\/\/\S+$/.test(uri)) {
    throw new ValidationError(`${field} must be a mongodb:// or mongodb+srv:// connection string`, { field });
  }
  try {
    // Parses only: the constructor does not connect (and srv records are resolved on connect).
    void new MongoClient(uri);
  } catch (err) {
    const reason = err instanceof MongoParseError ? redactUrlCredentials(err.message) : 'unparsable';
    throw new ValidationError(`${field} is not a valid MongoDB connection string: ${reason}`, { field });
  }
  return uri;
}

/** Checks a database name against MongoDB's rules; throws ValidationError naming `field`. */
export function validateDbName(dbName: unknown, field = 'dbName'): string {
  if (typeof dbName !== 'string' || dbName.length === 0 || dbName.length > 63 || INVALID_DB_NAME.test(dbName)) {
    throw new ValidationError(`${field} must be 1 to 63 characters without / \\ . " $ * < > : | ? or spaces`, { field });
  }
  return dbName;
}

/** Authentication mechanisms that make the driver fetch the server's own cloud or Kerberos credentials. */
const SERVER_CREDENTIAL_MECHANISMS = new Set(['MONGODB-AWS', 'MONGODB-OIDC', 'GSSAPI']);

/** Connection-string options that name files on the server or a SOCKS5 proxy for the driver to dial. */
const SERVER_SIDE_OPTIONS = ['proxyHost', 'tlsCAFile', 'tlsCertificateKeyFile', 'tlsCRLFile'] as const;

/**
 * Checks what a connection string given through the API (`POST /{key}/instance/mongodb`) makes the
 * server dial or use, unless `allowPrivate` (`PARLEY_ALLOW_PRIVATE_URLS=1`): every seed host must be
 * public (an IP literal in any spelling, or a name none of whose addresses is private, `localhost`
 * and `*.local`/`*.internal` refused outright; the `mongodb+srv` name too), no Unix socket, no SOCKS5
 * proxy, no server-side file (`tlsCAFile`, …), and no authentication mechanism that fetches the
 * server's own credentials (MONGODB-AWS and MONGODB-OIDC read cloud metadata endpoints on link-local
 * addresses and hand the result to the database; GSSAPI uses the server's Kerberos identity).
 * Host names are checked again each time the driver dials them ({@link MongoConnectionSettings.allowPrivate}),
 * so DNS rebinding is caught. Throws ValidationError naming `field`.
 */
export async function assertMongoTargetsAllowed(uri: string, allowPrivate: boolean, field = 'uri'): Promise<void> {
  if (allowPrivate) return;
  const refuse = (why: string) => new ValidationError(`${field} ${why} (${PRIVATE_URLS_HINT})`, { field });
  const { options } = new MongoClient(uri);
  const mechanism = options.credentials?.mechanism;
  if (mechanism && SERVER_CREDENTIAL_MECHANISMS.has(mechanism)) throw refuse(`uses authMechanism ${mechanism}, which lends the server's own credentials`);
  for (const name of SERVER_SIDE_OPTIONS) {
    if (options[name] !== undefined) throw refuse(`sets ${name}, which only the operator may set`);
  }
  const check = async (host: string, port: number | undefined) => {
    const literal = isIP(host) === 6 ? `[${host}]` : host;
    try {
      await assertUrlAllowed(`mongodb://${literal}${port ? `:${port}` : ''}`, { field, protocols: ['mongodb'], allowPrivate });
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      // A name that does not resolve now is the connection's failure (a 502, as before), not a refusal;
      // the driver's lookup checks it again when it dials. An SRV name need not have addresses at all.
      if (/cannot be resolved/.test(err.message)) return;
      throw new ValidationError(err.message, { field });
    }
  };
  if (options.srvHost) {
    await check(options.srvHost, undefined);
    return;
  }
  for (const address of options.hosts) {
    if (address.socketPath !== undefined) throw refuse('names a Unix socket on the server');
    if (address.host === undefined) throw refuse('has a host that cannot be checked');
    await check(address.host, address.port);
  }
}
