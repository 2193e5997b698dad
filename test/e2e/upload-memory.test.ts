import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { peakRss } from '../support/process-memory.js';
import { ServerChild } from '../support/server-child.js';

const MiB = 1024 * 1024;

/**
 * Uploads a whole body of `size` bytes to `path` as fast as the connection takes it, until the server
 * answers and closes. Answers the status and how many bytes the client got to write.
 */
function fullUpload(url: string, path: string, size: number): Promise<{ status: number; written: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    let written = 0;
    const chunk = Buffer.alloc(MiB, 'A');
    const pump = (): void => {
      while (written < size) {
        written += chunk.length;
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
    const done = (): void => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
      if (!status) reject(new Error(`no answer: ${answer}`));
      else resolve({ status, written: Math.min(written, socket.bytesWritten) });
    };
    socket.on('close', done);
    socket.on('error', () => undefined);
    socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`);
    pump();
  });
}

// The report of issue #12: 16 uploads of 32 MiB with a made-up key took the process from 160 MB to 744 MB.
describe('uploads with a made-up key cost the server no memory', { skip: !existsSync('/proc/self/status') && 'needs /proc (Linux)' }, () => {
  let server: ServerChild;
  let dataDir: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-upload-memory-'));
    server = await ServerChild.start(dataDir);
  });
  after(async () => {
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('16 parallel media-sized uploads are answered 404 and cut off; peak RSS grows by less than 64 MiB', async () => {
    const pid = server.child.pid!;
    // Media routes take the largest bodies (≈ 21.4 MiB by default): just under it, so a size check alone would not refuse them.
    const size = 21 * MiB;
    const before = peakRss(pid);
    const uploads = await Promise.all(Array.from({ length: 16 }, (_, i) =>
      fullUpload(server.url, `/madeUpKey${String(i).padStart(2, '0')}AAAAAAAAAAAAAAAAAAAAAAA/message/base64/image`, size)));
    for (const upload of uploads) {
      assert.equal(upload.status, 404);
      assert.ok(upload.written < size / 2, `the server stopped the upload (${upload.written} of ${size} bytes written)`);
    }
    const growth = peakRss(pid) - before;
    assert.ok(growth < 64 * MiB, `peak RSS grew by ${Math.round(growth / MiB)} MiB`);
    // The server is still serving.
    assert.equal((await server.request('GET', '/healthz')).status, 200);
  });
});
