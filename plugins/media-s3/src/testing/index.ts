import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How long s3rver may take to listen or to stop. */
const PROCESS_TIMEOUT_MS = 15_000;

/**
 * An S3 protocol server of the test's own on loopback ([s3rver](https://github.com/jamhall/s3rver),
 * files in a temporary directory), with one bucket. It accepts the credentials `S3RVER` / `S3RVER`,
 * which {@link S3TestServer.start} puts in the environment the AWS SDK reads. For tests
 * (`@parley/media-s3/testing`; s3rver is an optional peer dependency the test installs).
 *
 * s3rver runs in a child process started with `--openssl-legacy-provider`: it encrypts the
 * continuation token of a truncated ListObjectsV2 page with DES, which Node 17+ offers only from
 * OpenSSL's legacy provider (in-process, every listing past one page failed with a 500).
 */
export class S3TestServer {
  private child?: ChildProcess;
  private port = 0;

  private constructor(private readonly directory: string, readonly bucket: string) {}

  /** Starts on a free port (or `port`, to start again where a client expects it). */
  static async start(bucket = 'parley-media'): Promise<S3TestServer> {
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    const server = new S3TestServer(await mkdtemp(join(tmpdir(), 'parley-s3-')), bucket);
    await server.listen();
    return server;
  }

  /** The endpoint to give the S3 client (`http://127.0.0.1:<port>`). */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The keys of the bucket's objects under `prefix`, in order (s3rver answers unsigned requests; up to 1,000). */
  async keys(prefix: string): Promise<string[]> {
    const res = await fetch(`${this.endpoint}/${this.bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`);
    if (!res.ok) throw new Error(`listing ${prefix} answered ${res.status}`);
    return [...(await res.text()).matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]!);
  }

  /** Stops answering (connections refused) and keeps the stored objects. */
  async pause(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.send('stop');
    const timer = setTimeout(() => child.kill('SIGKILL'), PROCESS_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  /** Answers again on the same port, with the objects stored before. */
  async listen(): Promise<void> {
    const entry = fileURLToPath(new URL('./s3rver-process.js', import.meta.url));
    const child = fork(entry, [this.directory, String(this.port), this.bucket], { execArgv: ['--openssl-legacy-provider'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), PROCESS_TIMEOUT_MS);
    const waiting = new AbortController();
    const exited = once(child, 'exit', { signal: waiting.signal }).then(([code]) => {
      throw new Error(`s3rver exited before it listened (code ${String(code)})`);
    });
    exited.catch(() => undefined);
    try {
      const [message] = await Promise.race([once(child, 'message', { signal: waiting.signal }) as Promise<[{ port: number }]>, exited]);
      this.port = message.port;
    } finally {
      waiting.abort();
      clearTimeout(timer);
    }
    // The test's process may end without stopping it: the closed IPC channel then stops it.
    child.unref();
    child.channel?.unref();
    this.child = child;
  }

  /** Stops and deletes the stored objects. */
  async stop(): Promise<void> {
    await this.pause();
    await rm(this.directory, { recursive: true, force: true });
  }
}
