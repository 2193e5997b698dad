/**
 * Text encoding for stored values that may hold binary data (auth creds, signal keys): Buffers and
 * Uint8Arrays become `{"type":"Buffer","data":"<base64>"}` and come back as Buffers.
 */
export function encodeStored(value: unknown): string {
  // A replacer takes JSON.stringify off its fast path for every member; most values (message
  // records, chats, sandbox state) hold no binary data, and finding that out is cheaper.
  if (!holdsBinary(value, 0)) return JSON.stringify(value);
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Uint8Array) return { type: 'Buffer', data: Buffer.from(v).toString('base64') };
    if (v && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data)) {
      // Buffer.prototype.toJSON ran before the replacer saw the Buffer.
      return { type: 'Buffer', data: Buffer.from((v as { data: number[] }).data).toString('base64') };
    }
    return v;
  });
}

/** Below this depth a value is assumed to hold binary data: the replacer path handles anything. */
const MAX_SCAN_DEPTH = 32;

/** Whether `value` holds a Uint8Array (Buffers included) or a Buffer's JSON form anywhere. */
function holdsBinary(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > MAX_SCAN_DEPTH || value instanceof Uint8Array) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsBinary(item, depth + 1)) return true;
    return false;
  }
  // Objects that serialize themselves (Dates, Longs) may answer anything: let the replacer see it.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return !(value instanceof Date);
  if ((value as { type?: unknown }).type === 'Buffer') return true;
  for (const key in value) if (holdsBinary((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

/** Inverse of {@link encodeStored}. */
export function decodeStored<T = unknown>(text: string): T {
  // Most stored values hold no binary data; a reviver on every member would cost more than the parse.
  if (!text.includes('"Buffer"')) return JSON.parse(text) as T;
  return JSON.parse(text, (_key, v: unknown) => {
    if (v && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer') {
      const data = (v as { data?: unknown }).data;
      if (typeof data === 'string') return Buffer.from(data, 'base64');
      if (Array.isArray(data)) return Buffer.from(data as number[]);
    }
    return v;
  }) as T;
}
