import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/**
 * An S3 protocol server of the test's own on loopback ([s3rver](https://github.com/jamhall/s3rver),
 * files in a temporary directory), with one bucket. It accepts the credentials `S3RVER` / `S3RVER`,
 * which {@link S3TestServer.start} puts in the environment the AWS SDK reads. For tests
 * (`@parley/media-s3/testing`; s3rver is an optional peer dependency the test installs).
 */
export class S3TestServer {
  private server?: S3rver;
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
    await this.server?.close();
    this.server = undefined;
  }

  /** Answers again on the same port, with the objects stored before. */
  async listen(): Promise<void> {
    this.server = new S3rver({ address: '127.0.0.1', port: this.port, silent: true, directory: this.directory, configureBuckets: [{ name: this.bucket }] });
    this.port = (await this.server.run()).port;
  }

  /** Stops and deletes the stored objects. */
  async stop(): Promise<void> {
    await this.pause();
    await rm(this.directory, { recursive: true, force: true });
  }
}
