import { randomBytes } from 'node:crypto';
import { isParleyError } from '@parley/core';
import { JsonReply, type ErrorEnvelope } from '../http/route.js';
import { MediaLinkError } from '../services/media-resolver.js';
import { s } from '../http/schema.js';

/** One row of the error table: the Cloud API's code (and subcode), type and title for a Parley error. */
interface CloudError {
  code: number;
  subcode?: number;
  type?: string;
  title: string;
  /** The HTTP status the Cloud API answers, when it is not Parley's own. */
  status?: number;
}

/**
 * Parley's error codes → the Cloud API's documented codes (docs/cloud-api.md prints this table). A
 * code not listed keeps its HTTP status and answers 100 (invalid parameter) below 500, 131000
 * (something went wrong) from 500.
 */
export const CLOUD_ERRORS: Record<string, CloudError> = {
  unauthorized: { code: 190, type: 'OAuthException', title: 'Invalid OAuth access token - Cannot parse access token', status: 401 },
  instance_not_found: { code: 190, type: 'OAuthException', title: 'Invalid OAuth access token - Cannot parse access token', status: 401 },
  phone_number_mismatch: { code: 100, subcode: 33, type: 'GraphMethodException', title: 'Unsupported request - method type: post', status: 400 },
  route_not_found: { code: 100, subcode: 33, type: 'GraphMethodException', title: 'Unsupported request', status: 400 },
  validation_failed: { code: 100, title: 'Invalid parameter' },
  malformed_json: { code: 100, title: 'Invalid parameter' },
  media_too_large: { code: 131052, title: 'Media download error' },
  media_download_timeout: { code: 131052, title: 'Media download error' },
  payload_too_large: { code: 131053, title: 'Media upload error' },
  media_link_failed: { code: 131053, title: 'Media upload error' },
  media_not_found: { code: 100, subcode: 33, type: 'GraphMethodException', title: 'Unsupported get request. Object does not exist', status: 404 },
  message_not_found: { code: 131009, title: 'Parameter value is not valid' },
  chat_not_found: { code: 131009, title: 'Parameter value is not valid' },
  number_not_registered: { code: 131026, title: 'Message undeliverable' },
  not_on_whatsapp: { code: 131026, title: 'Message undeliverable' },
  outside_window: { code: 131047, title: 'Re-engagement message' },
  capability_not_supported: { code: 131051, title: 'Unsupported message type' },
  template_not_found: { code: 132001, title: 'Template name does not exist in the translation', status: 404 },
  template_exists: { code: 100, subcode: 2388024, title: 'Invalid parameter', status: 400 },
  template_param_mismatch: { code: 132000, title: 'Number of parameters does not match the expected number of params', status: 400 },
  not_connected: { code: 131005, title: 'Access denied' },
  channel_not_linked: { code: 131005, title: 'Access denied' },
  queue_full: { code: 130429, title: 'Rate limit hit' },
  rate_limited: { code: 4, title: 'Application request limit reached' },
  service_unavailable: { code: 2, title: 'Service temporarily unavailable' },
  shutting_down: { code: 2, title: 'Service temporarily unavailable' },
  upstream_error: { code: 131000, title: 'Something went wrong' },
};

/** Failures of express's body parsing (before the route's handler), as Parley codes. */
const BODY_ERRORS: Record<string, { status: number; code: string }> = {
  'entity.too.large': { status: 413, code: 'payload_too_large' },
  'entity.parse.failed': { status: 400, code: 'malformed_json' },
  'encoding.unsupported': { status: 415, code: 'validation_failed' },
  'charset.unsupported': { status: 415, code: 'validation_failed' },
};

/** The Cloud API's error answer, for the OpenAPI document. */
export const cloudErrorSchema = s.openObject({
  error: s.openObject({
    message: s.string(), type: s.string(), code: s.integer(), error_subcode: s.integer(),
    error_data: s.openObject({ messaging_product: s.string({ const: 'whatsapp' }), details: s.string() }),
    fbtrace_id: s.string(),
  }, ['message', 'type', 'code', 'fbtrace_id']),
}, ['error']);

/** A Cloud API error answer: `{"error": {message, type, code, error_subcode?, error_data: {details}, fbtrace_id}}`. */
export function cloudError(status: number, parleyCode: string, details: string): JsonReply {
  const row = CLOUD_ERRORS[parleyCode] ?? (status >= 500 ? { code: 131000, title: 'Something went wrong' } : { code: 100, title: 'Invalid parameter' });
  return new JsonReply(row.status ?? status, {
    error: {
      message: `(#${row.code}) ${row.title}`,
      type: row.type ?? 'OAuthException',
      code: row.code,
      ...(row.subcode === undefined ? {} : { error_subcode: row.subcode }),
      error_data: { messaging_product: 'whatsapp', details },
      // Meta's support reference of a request; Parley's logs carry no such id, so it is only unique.
      fbtrace_id: randomBytes(12).toString('base64url'),
    },
  });
}

/** Every failure of a Cloud API route in the Cloud API's envelope (unknown errors: 500, details withheld). */
export const cloudErrorEnvelope: ErrorEnvelope = {
  name: 'CloudApiError',
  schema: cloudErrorSchema,
  answer(err) {
    // A media link that could not be fetched is Parley's validation_failed, and the Cloud API's media upload error.
    if (err instanceof MediaLinkError) return cloudError(err.status, 'media_link_failed', err.message);
    if (isParleyError(err)) return cloudError(err.status, err.code, err.message);
    const body = BODY_ERRORS[(err as { type?: string }).type ?? ''];
    if (body) return cloudError(body.status, body.code, (err as Error).message);
    return cloudError(500, 'internal_error', 'internal server error');
  },
};
