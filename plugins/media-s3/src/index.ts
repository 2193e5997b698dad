import { definePlugin } from '@parley/core';
import { S3MediaStore } from './s3-media-store.js';
import { resolveS3MediaOptions, s3MediaOptionsSchema, type S3MediaOptions } from './s3.options.js';

export { S3MediaStore } from './s3-media-store.js';
export { resolveS3MediaOptions, s3MediaOptionsSchema, type ResolvedS3MediaOptions, type S3MediaOptions } from './s3.options.js';

/** `@parley/media-s3`: keeps media in an S3-compatible bucket instead of the storage back end (README). */
export default definePlugin<S3MediaOptions>({
  name: '@parley/media-s3',
  kind: 'media',
  provides: { media: true },
  coreVersion: '^0.1.0',
  optionsSchema: s3MediaOptionsSchema,
  register({ media, options, logger, clock }) {
    media.set(new S3MediaStore(resolveS3MediaOptions(options), logger.child({ media: 's3' }), clock));
  },
});
