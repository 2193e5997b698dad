/**
 * Text encoding for stored values that may hold binary data (auth creds, signal keys): Buffers and
 * Uint8Arrays become `{"type":"Buffer","data":"<base64>"}` and come back as Buffers.
 */
export function encodeStored(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Uint8Array) return { type: 'Buffer', data: Buffer.from(v).toString('base64') };
    if (v && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data)) {
      // Buffer.prototype.toJSON ran before the replacer saw the Buffer.
      return { type: 'Buffer', data: Buffer.from((v as { data: number[] }).data).toString('base64') };
    }
    return v;
  });
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
