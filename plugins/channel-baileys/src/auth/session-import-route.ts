import { ConflictError, type DriverRoute } from '@parley/core';
import type { BaileysAdapter } from '../baileys.adapter.js';
import { MAX_KEY_FILES, parseSessionImport } from './session-import.js';

/** Largest import body: a session directory of a busy account (thousands of small key files) as JSON. */
export const SESSION_IMPORT_BYTES = 32 * 1024 * 1024;

const BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['creds'],
  properties: {
    creds: { type: 'object', description: 'creds.json of the session directory, as parsed JSON (binary values as BufferJSON of Baileys writes them: an object with a type and base64 data).' },
    keys: {
      type: 'object',
      maxProperties: MAX_KEY_FILES,
      description: 'Every other file of the directory: its name (pre-key-1.json, session-5511….0.json, app-state-sync-key-….json, …) to its parsed JSON content.',
      additionalProperties: {},
    },
  },
};

const ANSWER = {
  type: 'object',
  required: ['status', 'data'],
  properties: {
    status: { type: 'integer' },
    data: {
      type: 'object',
      required: ['instance', 'device', 'keys'],
      properties: { instance: { type: 'string' }, device: { type: 'string' }, keys: { type: 'integer' } },
    },
  },
};

/**
 * `POST /whatsapp/instances/{key}/session` (admin): imports a linked Baileys session, as Evolution API and
 * WAHA (NOWEB) keep them (`useMultiFileAuthState` directories), into a WhatsApp instance that is not
 * connecting; its next connect logs in with it, without a QR code (docs/guides/from-evolution-api.md).
 */
export function sessionImportRoute(driverName: string): DriverRoute {
  return {
    method: 'post', path: '/instances/:key/session', admin: true, bodyLimitBytes: SESSION_IMPORT_BYTES,
    summary: 'Import a linked WhatsApp session (Baileys useMultiFileAuthState: creds.json and the key files) into an instance that is not connected; '
      + 'its next connect (POST /{key}/instance) logs in without a QR code. Replaces the instance\'s stored session. Admin token.',
    body: BODY,
    response: ANSWER,
    // 404 unknown key; 409 not a WhatsApp instance, or its connection is running.
    errors: [404, 409],
    handler: async (req) => {
      const record = await req.instanceByKey(req.params.key!);
      if (record.driver !== driverName) throw new ConflictError('this instance is not a WhatsApp instance', 'not_whatsapp');
      const imported = parseSessionImport(req.body as { creds: unknown; keys?: Record<string, unknown> });
      const adapter = (await req.adapter(record.id)) as BaileysAdapter;
      await adapter.importSession(imported);
      return { status: 200, body: { status: 200, data: { instance: record.id, device: imported.device, keys: imported.entries.length - 1 } } };
    },
  };
}
