import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { Request } from 'express';
import busboy from 'busboy';
import { isParleyError, PayloadTooLargeError, ValidationError } from '@parley/core';

/** The file part of an upload, as it streamed past: its bytes went to the store. */
export interface ReceivedFile {
  size: number;
  sha256: string;
  /** The part's own Content-Type (`application/octet-stream` when it has none). */
  mimeType: string;
  fileName?: string;
}

/** What a multipart upload carried: its text fields, and its file part if it had one. */
export interface ReceivedUpload {
  fields: Map<string, string>;
  file?: ReceivedFile;
}

/** Keeps the bytes of a file part as they arrive; answers how many there were (`writeMedia`). */
export type FileSink = (body: Readable, description: { mimetype: string; fileName?: string }) => Promise<number>;

/** Bounds of the parts of an upload besides its file (`file`, `type`, `messaging_product` and a few more). */
const LIMITS = { parts: 20, fields: 16, fieldSize: 64 * 1024 };

/**
 * Reads a multipart/form-data request of at most `limit` bytes as it arrives (busboy): its fields
 * are collected, and the first file part named `fileField` goes to `sink` as a stream, hashed on the
 * way, so that the file is never held whole here. Rejects with 413 past `limit` (a declared length
 * before reading), 400 for a body that is not well-formed multipart, or the sink's own failure; the
 * request is then no longer read. When it rejects after `sink` stored the file, the caller deletes it.
 */
export function receiveMultipart(req: Request, limit: number, fileField: string, sink: FileSink): Promise<ReceivedUpload> {
  const tooLarge = () => new PayloadTooLargeError(`the upload is larger than ${limit} bytes`, { limit });
  if (Number(req.headers['content-length']) > limit) return Promise.reject(tooLarge());
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: LIMITS });
  } catch {
    return Promise.reject(new ValidationError('the multipart body could not be parsed'));
  }
  const fields = new Map<string, string>();
  let stored: Promise<ReceivedFile> | undefined;
  let stopped = false;
  /** Stops reading the request (left unread, so the answer can still be sent) and fails the parse with `err`. */
  const stop = (err: unknown): void => {
    if (stopped) return;
    stopped = true;
    req.pause();
    parser.destroy(err as Error);
  };
  parser.on('field', (name, value) => fields.set(name, value));
  parser.on('file', (name, file, info) => {
    if (name !== fileField || stored) {
      file.resume();
      return;
    }
    stored = keep(file, info, sink);
    stored.catch(stop);
  });
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    if (stopped) return;
    size += chunk.length;
    if (size > limit) return stop(tooLarge());
    if (!parser.write(chunk)) {
      req.pause();
      parser.once('drain', () => stopped || req.resume());
    }
  });
  req.once('end', () => stopped || parser.end());
  req.once('close', () => req.complete || stop(new Error('the client closed the upload')));
  return new Promise((resolve, reject) => {
    // Busboy emits a malformed body's error itself, and stopping destroys it with that error, which
    // emits it again: every emission is listened to (an unheard one is an uncaught exception), the first decides.
    let failed = false;
    parser.on('error', (err) => {
      if (failed) return;
      failed = true;
      stop(err);
      reject(isParleyError(err) ? err : new ValidationError('the multipart body could not be parsed'));
    });
    parser.once('close', () => {
      if (!stored) resolve({ fields });
      else stored.then((file) => resolve({ fields, file }), reject);
    });
  });
}

/** Hands a file part to `sink`, hashing and counting it as it passes. */
async function keep(file: Readable, info: busboy.FileInfo, sink: FileSink): Promise<ReceivedFile> {
  const hash = createHash('sha256');
  const hashed = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  file.on('error', (err) => hashed.destroy(err));
  file.pipe(hashed);
  const fileName = info.filename || undefined;
  const size = await sink(hashed, { mimetype: info.mimeType, ...(fileName ? { fileName } : {}) });
  return { size, sha256: hash.digest('hex'), mimeType: info.mimeType, ...(fileName ? { fileName } : {}) };
}
