import { MongoClient, MongoParseError } from 'mongodb';
import { ValidationError, redactUrlCredentials } from '@parley/core';

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
