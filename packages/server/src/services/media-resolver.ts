import { createHash } from 'node:crypto';
import { assertUrlAllowed, PayloadTooLargeError, ValidationError, type MediaInput } from '@parley/core';
import { guardedGet, GuardedGetError, parseProxy, type GuardedGetFailure, type GuardedGetResult } from '@parley/net';

/** Which media a field accepts; decides the content-type check. */
export type MediaKind = 'image' | 'audio' | 'video' | 'document' | 'sticker';

const ACCEPT: Record<MediaKind, (type: string) => boolean> = {
  image: (t) => t.startsWith('image/'),
  sticker: (t) => t === 'image/webp' || t === 'image/png' || t === 'image/jpeg' || t === 'image/gif',
  audio: (t) => t.startsWith('audio/') || t === 'application/ogg' || t === 'video/ogg',
  video: (t) => t.startsWith('video/'),
  document: (t) => t.length > 0,
};

/**
 * How a fetch reaches the media host: through the proxy of the instance it is made for
 * (`POST /{key}/instance/proxy`), if any. An `InstanceRecord` is one.
 */
export interface MediaRoute {
  /** The instance's proxy URL (`InstanceRecord.proxy`); unset or empty for a direct connection. */
  proxy?: string;
}

/** Limits of {@link MediaResolver}. */
export interface MediaLimits {
  maxBytes: number;
  timeoutMs: number;
  allowPrivateUrls: boolean;
  /** The instance's proxy may be on a private network (default: as `allowPrivateUrls`). */
  allowPrivateProxies?: boolean;
  /** Redirects followed, each re-validated (default 3). */
  maxRedirects?: number;
}

/** Failures of the link itself (it answered an error status, nothing, or not in time), not of the server's policy or limits. */
const LINK_FAILURES: ReadonlySet<GuardedGetFailure> = new Set(['status', 'timeout', 'idle', 'network', 'empty']);

/**
 * A media URL that could not be fetched for a reason of the link's ({@link LINK_FAILURES}): a 400
 * `validation_failed` like every refused field, which protocols with a code of their own for it tell
 * apart (the Cloud API's 131053, media upload error).
 */
export class MediaLinkError extends ValidationError {
  constructor(message: string, readonly failure: GuardedGetFailure) {
    super(message);
  }
}

/**
 * Turns user-supplied media (a URL or a base64 data URI) into bytes, safely: http/https only,
 * private addresses refused at connect time unless allowed, a size limit while streaming, an
 * overall time-out, and a content-type check against what the field accepts. URLs are fetched
 * through the sending instance's proxy when `route` names one (the proxy is asked for the checked
 * address). Every failure is a 400 (or 413) naming the field; nothing is stored before the media resolved.
 */
export class MediaResolver {
  constructor(private readonly limits: MediaLimits) {}

  /** Resolves `value`: a `data:` URI is decoded, anything else is fetched as a URL. */
  async resolve(value: string, field: string, kind: MediaKind, fileName?: string, route?: MediaRoute): Promise<MediaInput> {
    return value.startsWith('data:') ? this.fromDataUri(value, field, kind, fileName) : this.fromUrl(value, field, kind, fileName, route);
  }

  /** Decodes a base64 data URI with the size limit. */
  fromDataUri(uri: string, field: string, kind: MediaKind, fileName?: string): MediaInput {
    const match = /^data:([\w.+-]+\/[\w.+-]+)(?:;[\w-]+=[\w.-]+)*;base64,([A-Za-z0-9+/=\s]*)$/.exec(uri);
    if (!match) throw new ValidationError(`${field} must be a base64 data URI (data:<mime>;base64,<data>)`);
    const mimetype = match[1]!.toLowerCase();
    const b64 = match[2]!.replace(/\s/g, '');
    if (Math.floor((b64.length * 3) / 4) > this.limits.maxBytes + 2) {
      throw new PayloadTooLargeError(`${field} is larger than ${this.limits.maxBytes} bytes`, { field, limit: this.limits.maxBytes });
    }
    const data = Buffer.from(b64, 'base64');
    if (data.length === 0) throw new ValidationError(`${field} is empty`);
    if (data.length > this.limits.maxBytes) throw new PayloadTooLargeError(`${field} is larger than ${this.limits.maxBytes} bytes`, { field, limit: this.limits.maxBytes });
    if (!ACCEPT[kind](mimetype)) throw new ValidationError(`${field} has content type ${mimetype}, which is not a valid ${kind}`);
    return { data, mimetype, fileName, sha256: createHash('sha256').update(data).digest('hex') };
  }

  /** Fetches a URL with the limits, through `route.proxy` when set. */
  async fromUrl(raw: string, field: string, kind: MediaKind, fileName?: string, route: MediaRoute = {}): Promise<MediaInput> {
    if (raw.length > 4096) throw new ValidationError(`${field} must be a URL of at most 4096 characters, or a base64 data URI`);
    let answer: GuardedGetResult;
    try {
      answer = await this.download(raw, field, {}, route);
    } catch (err) {
      throw err instanceof GuardedGetError ? this.fetchError(err, field) : err;
    }
    if (!ACCEPT[kind](answer.mimetype)) {
      throw new ValidationError(`${field} has content type ${answer.mimetype || 'none'}, which is not a valid ${kind}`);
    }
    const name = fileName ?? (decodeURIComponent(answer.url.pathname.split('/').pop() ?? '') || undefined);
    return { data: answer.data, mimetype: answer.mimetype, fileName: name, sourceUrl: raw, sha256: createHash('sha256').update(answer.data).digest('hex') };
  }

  /**
   * Fetches a URL under the same guard (private addresses, redirects re-checked, the instance's
   * proxy), with the media limits or tighter ones. A URL refused before any connection (not http,
   * a private address literal) is a ValidationError naming `field`; a failed download rejects with
   * the GuardedGetError, for the caller to word.
   */
  async download(raw: string, field: string, tighter: { maxBytes?: number; timeoutMs?: number } = {}, route: MediaRoute = {}): Promise<GuardedGetResult> {
    const check = (value: string) => assertUrlAllowed(value, { field, allowPrivate: this.limits.allowPrivateUrls, resolve: false });
    const limits = {
      maxBytes: Math.min(tighter.maxBytes ?? Infinity, this.limits.maxBytes), timeoutMs: Math.min(tighter.timeoutMs ?? Infinity, this.limits.timeoutMs),
      allowPrivate: this.limits.allowPrivateUrls, maxRedirects: this.limits.maxRedirects,
    };
    return guardedGet(await check(raw), limits, check, { proxy: parseProxy(route.proxy), allowPrivateProxy: this.limits.allowPrivateProxies ?? this.limits.allowPrivateUrls });
  }

  /** The 400 (or 413) naming the field that a failed download answers. */
  private fetchError(err: GuardedGetError, field: string): Error {
    if (err.failure === 'too_large') return new PayloadTooLargeError(`${field} is larger than ${this.limits.maxBytes} bytes`, { field, limit: this.limits.maxBytes });
    if (err.failure === 'redirects') return new ValidationError(`${field} redirects too many times`);
    const message = `${field} could not be fetched: ${err.message}`;
    return LINK_FAILURES.has(err.failure) ? new MediaLinkError(message, err.failure) : new ValidationError(message);
  }
}
