/**
 * Options of `@parley/media-s3`, as written in the server configuration. Credentials are never
 * options: they come from the AWS SDK's usual sources (`AWS_ACCESS_KEY_ID` and
 * `AWS_SECRET_ACCESS_KEY` in the environment, a profile, an instance role).
 */
export interface S3MediaOptions {
  /** The bucket; it must exist. */
  bucket: string;
  /** The S3 endpoint (`https://minio.internal:9000`); default AWS's for the region. */
  endpoint?: string;
  /** Default `AWS_REGION`, then `us-east-1`. */
  region?: string;
  /** Path-style addressing (`endpoint/bucket/key`), which MinIO and most S3-compatible servers want. Default true with `endpoint`, else false. */
  forcePathStyle?: boolean;
  /** Prefix of every object key, so several deployments can share a bucket. Default `parley/`. */
  prefix?: string;
  /** Days media is kept (by when it was stored); 0 keeps it for ever. Default 0. */
  retentionDays?: number;
  /** Bound of one request to the store (ms); past it the call answers 503. Default 30000. */
  requestTimeoutMs?: number;
  /** Attempts of one request (the SDK's retries with backoff on throttling and 5xx). Default 3. */
  maxAttempts?: number;
  /**
   * Seconds a presigned GET stays valid; when above 0, GET media of a stored blob answers 302 to one
   * instead of passing the bytes through Parley (the client must reach the bucket's endpoint). 0 = off. Default 0.
   */
  presignedGetSeconds?: number;
}

/** Options with their defaults. */
export type ResolvedS3MediaOptions = Required<Omit<S3MediaOptions, 'endpoint'>> & Pick<S3MediaOptions, 'endpoint'>;

/** JSON Schema of {@link S3MediaOptions}; the host validates it with ajv in strict mode. */
export const s3MediaOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['bucket'],
  properties: {
    // S3's bucket naming rules: 3-63 lower-case letters, digits, dots and dashes.
    bucket: { type: 'string', pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$' },
    endpoint: { type: 'string', pattern: '^https?://', maxLength: 2000 },
    region: { type: 'string', pattern: '^[a-z0-9-]{1,40}$' },
    forcePathStyle: { type: 'boolean' },
    prefix: { type: 'string', maxLength: 200, pattern: '^[^\\u0000-\\u001f]*$' },
    retentionDays: { type: 'integer', minimum: 0, maximum: 36500 },
    requestTimeoutMs: { type: 'integer', minimum: 100, maximum: 600000 },
    maxAttempts: { type: 'integer', minimum: 1, maximum: 10 },
    // SigV4 presigned URLs live at most 7 days.
    presignedGetSeconds: { type: 'integer', minimum: 0, maximum: 604800 },
  },
} as const;

/** Applies defaults; `env` supplies `AWS_REGION`. */
export function resolveS3MediaOptions(options: S3MediaOptions, env: NodeJS.ProcessEnv = process.env): ResolvedS3MediaOptions {
  return {
    bucket: options.bucket,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    region: options.region ?? (env.AWS_REGION || 'us-east-1'),
    forcePathStyle: options.forcePathStyle ?? options.endpoint !== undefined,
    prefix: options.prefix ?? 'parley/',
    retentionDays: options.retentionDays ?? 0,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    maxAttempts: options.maxAttempts ?? 3,
    presignedGetSeconds: options.presignedGetSeconds ?? 0,
  };
}
