import { ParleyApiError, ParleyClient, streamEvents, type OperationResponse } from '@parley/client';
import type { EventSource } from './live-hub.js';

/** sessionStorage entry of the admin token: gone when the tab closes, never in the URL or localStorage. */
const TOKEN_ENTRY = 'parley.adminToken';

/** An instance as the admin API lists it. */
export type AdminInstance = OperationResponse<'adminListInstances'>['data'][number];
/** The instance record of `GET /{key}/instance`. */
export type InstanceRecord = OperationResponse<'getInstance'>['instance'];
/** The cluster as `GET /admin/cluster` answers it (`enabled` false on a single server, `nodes` then empty). */
export type ClusterView = OperationResponse<'adminGetCluster'>['data'];
/** A node of the cluster. */
export type ClusterNode = ClusterView['nodes'][number];
/** Connection status of an instance (`connection.status`). */
export type ConnectionStatus = NonNullable<InstanceRecord['connection']>['status'];

export function storedToken(): string | null {
  return sessionStorage.getItem(TOKEN_ENTRY);
}

export function saveToken(token: string): void {
  sessionStorage.setItem(TOKEN_ENTRY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_ENTRY);
}

/** The typed client of the public API, on the server that served the dashboard. */
export function clientFor(adminToken: string): ParleyClient {
  return new ParleyClient({ baseUrl: location.origin, adminToken });
}

/**
 * The admin event stream of the server that served the dashboard (`GET /admin/events`, the token in
 * the `Authorization` header), in the native format whatever each instance's webhook format.
 * `streamEvents` reconnects by itself with `Last-Event-ID`; `onOpen` is called each time the server
 * accepts the stream.
 */
export function eventSourceFor(adminToken: string): EventSource {
  return (signal, onOpen) => streamEvents({
    baseUrl: location.origin, adminToken, format: 'native', signal,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (res.ok) onOpen();
      return res;
    },
  });
}

/** Field errors of a 400 answer (`details.fields`), by field name without its `body.` prefix, each without the field's name. */
export function fieldErrors(err: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(err instanceof ParleyApiError)) return out;
  const fields = (err.details as { fields?: { field?: unknown; message?: unknown }[] } | undefined)?.fields;
  for (const f of fields ?? []) {
    if (typeof f.field !== 'string' || typeof f.message !== 'string') continue;
    const name = f.field.replace(/^body\./, '');
    // Beside its field the message need not name the field again (`body.name must …` → `Must …`).
    const rest = f.message.startsWith(f.field) ? f.message.slice(f.field.length).replace(/^[:\s]+/, '') : '';
    out[name] = rest ? rest[0]!.toUpperCase() + rest.slice(1) : f.message;
    // A nested field (`options.number`) is also the message of the form field holding it (`options`).
    const top = /^[^.[]+/.exec(name)?.[0];
    if (top && top !== name) out[top] ??= f.message;
  }
  return out;
}

/** Whether every field of a 400 answer's `details.fields` is one a form shows beside its own input (by top-level member). */
export function allShown(fields: Record<string, string>, shown: readonly string[]): boolean {
  const names = Object.keys(fields);
  return names.length > 0 && names.every((name) => shown.includes(/^[^.[]+/.exec(name)![0]));
}

/** A sentence for an error shown to the operator: the API's own message, or what went wrong on the way. */
export function errorText(err: unknown): string {
  if (err instanceof ParleyApiError) {
    if (err.status === 401) return 'The server refused the admin token (401 unauthorized).';
    if (err.status === 429) return `Too many failed attempts from this address: ${err.message}`;
    return `${err.message} (${err.status} ${err.code})`;
  }
  if (err instanceof TypeError) return `The server could not be reached: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

/** Whether an error means the admin token no longer works (the dashboard then signs out). */
export function isUnauthorized(err: unknown): boolean {
  return err instanceof ParleyApiError && err.status === 401;
}

/** The phone number of a WhatsApp JID (`5511…@s.whatsapp.net` → `5511…`), or the id as it is. */
export function phoneOf(jid: string | undefined | null): string {
  if (!jid) return '';
  return jid.replace(/[:@].*$/, '');
}
