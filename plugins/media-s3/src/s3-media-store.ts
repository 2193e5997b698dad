import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client,
  type ListObjectsV2CommandOutput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  ServiceUnavailableError, describeError, inlineDisposition, systemClock, type Clock, type Logger, type MediaBlob, type MediaObject, type MediaStore,
  type ScanPage, type ScanRequest,
} from '@parley/core';
import type { ResolvedS3MediaOptions } from './s3.options.js';

/** How often expired media is looked for, with `retentionDays`. */
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * A streamed upload ({@link S3MediaStore.putStream}) goes in parts of this size (S3's smallest), one
 * at a time: one part of it is held while it is sent, whatever its length. Shorter bodies go as one
 * PutObject.
 */
const UPLOAD_PART_BYTES = 5 * 1024 * 1024;

/** Most keys one ListObjectsV2 answers (S3's `MaxKeys` limit). */
const LIST_PAGE_KEYS = 1000;

/** The message id an object's name under its instance's prefix encodes; none for a name Parley did not write. */
function messageIdOf(name: string): string[] {
  if (name.includes('/')) return [];
  try {
    return [decodeURIComponent(name)];
  } catch {
    return [];
  }
}

/** A failure of the SDK that means "no such object" (or bucket). */
function notFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.name === 'NoSuchBucket' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * Media bytes in an S3-compatible bucket, one object per blob: `<prefix><instance>/<message id>`
 * (both URI-encoded), with the MIME type as the object's Content-Type and the file name in its
 * metadata. Every call's answer is bounded by `requestTimeoutMs` (the SDK's own retries included),
 * and so is any silence of the connection while bytes stream; a call fails with
 * ServiceUnavailableError (HTTP 503) when the store cannot be reached or refuses.
 */
export class S3MediaStore implements MediaStore {
  readonly name = 's3';
  readonly location: string;
  private readonly client: S3Client;
  private sweeper?: NodeJS.Timeout;

  constructor(private readonly options: ResolvedS3MediaOptions, private readonly logger?: Logger, private readonly clock: Clock = systemClock) {
    this.location = `s3://${options.bucket}/${options.prefix}${options.endpoint ? ` at ${new URL(options.endpoint).origin}` : ` (${options.region})`}`;
    this.client = new S3Client({
      region: options.region, forcePathStyle: options.forcePathStyle, maxAttempts: options.maxAttempts,
      // Bounds a streamed body's silences (a store that stops sending mid-object): the stream errors.
      requestHandler: { socketTimeout: options.requestTimeoutMs },
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    });
  }

  /** Checks the bucket: a missing one fails start-up; an unreachable store is logged and tried again at each call. */
  async init(): Promise<void> {
    try {
      const bucket = await this.call((o) => this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }), o), true);
      if (!bucket) throw new Error(`media store ${this.location}: the bucket does not exist`);
    } catch (err) {
      if (err instanceof ServiceUnavailableError) {
        this.logger?.warn({ media: this.location, err: err.message }, 'media store unreachable at start-up; media calls answer 503 until it is back');
      } else throw err;
    }
    if (this.options.retentionDays > 0) {
      this.sweeper = setInterval(() => void this.sweep().catch((err: unknown) => this.logger?.warn({ err: describeError(err) }, 'media retention sweep failed')), SWEEP_INTERVAL_MS).unref();
    }
  }

  async put(instance: string, messageId: string, blob: MediaBlob): Promise<void> {
    await this.call((o) => this.client.send(new PutObjectCommand({
      Bucket: this.options.bucket, Key: this.key(instance, messageId), Body: blob.data, ContentType: blob.mimetype, ContentLength: blob.data.length,
      ...this.metadata(blob.fileName),
    }), o));
  }

  /** Streams `body` to the object as it arrives (a multipart upload past one part), holding one 5 MiB part of it at a time. */
  async putStream(instance: string, messageId: string, body: Readable, description: { mimetype: string; fileName?: string }): Promise<number> {
    let size = 0;
    let bodyError: unknown;
    body.once('error', (err) => (bodyError = err));
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(null, chunk);
      },
    });
    pipeline(body, counted).catch(() => undefined);
    const upload = new Upload({
      client: this.client, partSize: UPLOAD_PART_BYTES, queueSize: 1,
      params: { Bucket: this.options.bucket, Key: this.key(instance, messageId), Body: counted, ContentType: description.mimetype, ...this.metadata(description.fileName) },
    });
    try {
      await upload.done();
    } catch (err) {
      counted.destroy();
      // The body's own failure (over a size limit, the client gone) is the caller's; the rest is the store's.
      if (bodyError) throw bodyError;
      throw this.unavailable(err);
    }
    return size;
  }

  async get(instance: string, messageId: string): Promise<MediaBlob | null> {
    const object = await this.open(instance, messageId);
    if (!object) return null;
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of object.body) chunks.push(chunk as Buffer);
    } catch (err) {
      throw this.unavailable(err);
    }
    return { data: Buffer.concat(chunks), mimetype: object.mimetype, ...(object.fileName === undefined ? {} : { fileName: object.fileName }) };
  }

  /** The object's description and its bytes as the store sends them; the stream errors if the store fails mid-way. */
  async open(instance: string, messageId: string): Promise<MediaObject | null> {
    const object = await this.call((o) => this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.key(instance, messageId) }), o), true);
    if (!object?.Body) return null;
    const fileName = object.Metadata?.filename;
    return {
      size: object.ContentLength ?? 0, mimetype: object.ContentType ?? 'application/octet-stream',
      ...(fileName === undefined ? {} : { fileName: decodeURIComponent(fileName) }), body: object.Body as Readable,
    };
  }

  /**
   * With `presignedGetSeconds`, a presigned GET of the object valid that long (its Content-Type, and
   * its file name as Content-Disposition, as GET media answers them); null when off or absent.
   */
  async presignGet(instance: string, messageId: string): Promise<string | null> {
    if (this.options.presignedGetSeconds === 0) return null;
    const Key = this.key(instance, messageId);
    const head = await this.call((o) => this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key }), o), true);
    if (!head) return null;
    const fileName = head.Metadata?.filename;
    const command = new GetObjectCommand({
      Bucket: this.options.bucket, Key, ...(fileName === undefined ? {} : { ResponseContentDisposition: inlineDisposition(decodeURIComponent(fileName)) }),
    });
    try {
      return await getSignedUrl(this.client, command, { expiresIn: this.options.presignedGetSeconds });
    } catch (err) {
      throw this.unavailable(err);
    }
  }

  async delete(instance: string, messageId: string): Promise<boolean> {
    const Key = this.key(instance, messageId);
    const head = await this.call((o) => this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key }), o), true);
    if (!head) return false;
    await this.call((o) => this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key }), o));
    return true;
  }

  async clear(instance: string): Promise<void> {
    await this.deleteWhere(this.instancePrefix(instance), () => true);
  }

  /**
   * The ids of the instance's objects, one ListObjectsV2 request per page (up to 1,000 keys, S3's
   * most), in the bucket's key order: the byte order of the URI-encoded ids (the ids' own order where
   * they need no encoding, as message ids). The position is the last key's encoded name, passed back
   * as `StartAfter`. Objects under the instance's prefix that Parley did not write are skipped.
   */
  async scanIds(instance: string, request: ScanRequest): Promise<ScanPage<string>> {
    const prefix = this.instancePrefix(instance);
    const page: ListObjectsV2CommandOutput = await this.call((o) => this.client.send(new ListObjectsV2Command({
      Bucket: this.options.bucket, Prefix: prefix, MaxKeys: Math.min(request.limit, LIST_PAGE_KEYS),
      ...(request.after === undefined ? {} : { StartAfter: `${prefix}${request.after}` }),
    }), o));
    const names = (page.Contents ?? []).flatMap((object) => (object.Key ? [object.Key.slice(prefix.length)] : []));
    const ids = names.flatMap(messageIdOf);
    return page.IsTruncated && names.length > 0 ? { items: ids, next: names.at(-1)! } : { items: ids };
  }

  /** Deletes the media stored more than `retentionDays` ago (by the object's last modification); answers how many. */
  async sweep(): Promise<number> {
    const before = this.clock.now() - this.options.retentionDays * DAY_MS;
    return this.deleteWhere(this.options.prefix, (modified) => modified !== undefined && modified.getTime() < before);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.client.destroy();
  }

  /** The file name as the object's metadata, which travels as HTTP headers: ASCII only, so URI-encoded. */
  private metadata(fileName: string | undefined): { Metadata?: Record<string, string> } {
    return fileName === undefined ? {} : { Metadata: { filename: encodeURIComponent(fileName) } };
  }

  private unavailable(err: unknown): ServiceUnavailableError {
    return new ServiceUnavailableError(`media store ${this.location} is unavailable: ${describeError(err)}`);
  }

  private key(instance: string, messageId: string): string {
    return `${this.instancePrefix(instance)}${encodeURIComponent(messageId)}`;
  }

  private instancePrefix(instance: string): string {
    return `${this.options.prefix}${encodeURIComponent(instance)}/`;
  }

  /** Lists the objects under `prefix` a page (1,000) at a time and deletes those `expired` picks, in one request per page. */
  private async deleteWhere(prefix: string, expired: (modified: Date | undefined) => boolean): Promise<number> {
    let token: string | undefined;
    let deleted = 0;
    do {
      const page: ListObjectsV2CommandOutput = await this.call((o) => this.client.send(new ListObjectsV2Command({ Bucket: this.options.bucket, Prefix: prefix, ContinuationToken: token }), o));
      const keys = (page.Contents ?? []).filter((o) => o.Key && expired(o.LastModified)).map((o) => ({ Key: o.Key! }));
      if (keys.length) {
        await this.call((o) => this.client.send(new DeleteObjectsCommand({ Bucket: this.options.bucket, Delete: { Objects: keys, Quiet: true } }), o));
        deleted += keys.length;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return deleted;
  }

  /**
   * Runs `send`, aborted if it has not answered within `requestTimeoutMs` (a streamed body is then
   * bounded by the connection's silences only); with `absentIsNull`, a 404 answers null. Other
   * failures are 503s naming the store.
   */
  private async call<T>(send: (options: { abortSignal: AbortSignal }) => Promise<T>, absentIsNull: true): Promise<T | null>;
  private async call<T>(send: (options: { abortSignal: AbortSignal }) => Promise<T>, absentIsNull?: false): Promise<T>;
  private async call<T>(send: (options: { abortSignal: AbortSignal }) => Promise<T>, absentIsNull = false): Promise<T | null> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error(`no answer within ${this.options.requestTimeoutMs} ms`)), this.options.requestTimeoutMs);
    try {
      return await send({ abortSignal: abort.signal });
    } catch (err) {
      if (absentIsNull && notFound(err)) return null;
      throw this.unavailable(err);
    } finally {
      clearTimeout(timer);
    }
  }
}
