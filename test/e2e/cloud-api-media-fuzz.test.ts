import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLOUD_VERSION, cloudRequest } from '../support/cloud-api.js';
import { isCloudRefusal } from '../support/json-mutations.js';
import { SAMPLES } from '../support/media-server.js';
import { ServerChild } from '../support/server-child.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** One part of a multipart body: a field, or a file with its name and type. */
type Part = { name: string; value: string | Buffer; fileName?: string; type?: string };

const BOUNDARY = 'parleyfuzzboundary';

/** The bytes of a multipart/form-data body of `parts`. */
function multipart(parts: Part[]): Buffer {
  const chunks = parts.flatMap((p) => [
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"${p.fileName === undefined ? '' : `; filename="${p.fileName}"`}\r\n`
      + `${p.type === undefined ? '' : `Content-Type: ${p.type}\r\n`}\r\n`),
    Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value), Buffer.from('\r\n'),
  ]);
  return Buffer.concat([...chunks, Buffer.from(`--${BOUNDARY}--\r\n`)]);
}

const ODD_TEXT = ['', '\u0000', 'x'.repeat(70_000), '👍\u202e', '../../etc/passwd', 'image/png; evil=1', 'text/html'];

/**
 * Media uploads of every wrong shape (parts missing, doubled, with odd values, names and types; bodies
 * cut short; other content types) and media ids of every wrong shape on GET and DELETE: each answers
 * an upload id or the Cloud API's error envelope (never a 5xx), and only the accepted uploads leave
 * anything in the instance's storage, described and with their bytes.
 */
describe('Cloud API media under bad uploads and ids', () => {
  let t: TestServer;
  let alice: { id: string; key: string };

  before(async () => {
    t = await startTestServer({ storage: 'sqlite', config: { mediaBodyLimitBytes: 64 * 1024 } });
    alice = await t.connectedSandbox({ name: 'alice', number: '5511900000951' });
  });
  after(() => t?.stop());

  /** The ids of every blob of alice's in the media store (its own enumeration, as `parley storage copy` reads it): what any upload left. */
  const storedBlobs = async (): Promise<string[]> => {
    const { media } = t.server.context.storage;
    assert.ok(media.scanIds, 'the media store enumerates its blobs');
    const ids: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 100; pages++) {
      const page = await media.scanIds(alice.id, { limit: 100, ...(after === undefined ? {} : { after }) });
      ids.push(...page.items);
      if (page.next === undefined) return ids.sort();
      after = page.next;
    }
    assert.fail('more than 100 pages of blobs');
  };

  const upload = async (body: Buffer, contentType = `multipart/form-data; boundary=${BOUNDARY}`) => {
    const res = await fetch(`${t.url}/${CLOUD_VERSION}/${alice.id}/media`, { method: 'POST', headers: { authorization: `Bearer ${alice.key}`, 'content-type': contentType }, body: new Uint8Array(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  it('each upload is stored under the id it answers, or refused leaving nothing behind', async () => {
    const base: Part[] = [{ name: 'messaging_product', value: 'whatsapp' }, { name: 'type', value: 'image/png' }, { name: 'file', value: SAMPLES.png, fileName: 'dot.png', type: 'image/png' }];
    const cases: { what: string; body: Buffer; contentType?: string }[] = [{ what: 'valid', body: multipart(base) }];
    base.forEach((part, i) => {
      const others = base.filter((_, j) => j !== i);
      cases.push({ what: `without ${part.name}`, body: multipart(others) }, { what: `${part.name} twice`, body: multipart([...base, part]) });
      cases.push({ what: `${part.name} renamed`, body: multipart([...others, { ...part, name: `${part.name}x` }]) });
      for (const text of ODD_TEXT) cases.push({ what: `${part.name} = ${text.slice(0, 20)}`, body: multipart([...others, { ...part, value: text }]) });
    });
    const file = base[2]!;
    for (const text of ODD_TEXT) {
      cases.push({ what: `file type ${text.slice(0, 20)}`, body: multipart([base[0]!, base[1]!, { ...file, type: text.slice(0, 200) }]) });
      cases.push({ what: `file name ${text.slice(0, 20)}`, body: multipart([base[0]!, base[1]!, { ...file, fileName: text.slice(0, 2000) }]) });
    }
    cases.push({ what: 'file over the limit', body: multipart([base[0]!, base[1]!, { ...file, value: Buffer.alloc(70 * 1024, 1) }]) });
    const whole = multipart(base);
    for (const cut of [10, 60, 120, 200, whole.length - 30, whole.length - 3]) cases.push({ what: `cut at ${cut}`, body: whole.subarray(0, cut) });
    for (const contentType of ['multipart/form-data', 'multipart/form-data; boundary=other', 'application/json', 'text/plain', 'application/x-www-form-urlencoded']) {
      cases.push({ what: `as ${contentType}`, body: whole, contentType });
    }

    const accepted: string[] = [];
    const wrong: string[] = [];
    for (const c of cases) {
      const res = await upload(c.body, c.contentType);
      if (res.status === 200 && /^pm\.[0-9a-f]{24}$/.test(res.body?.id)) accepted.push(res.body.id);
      else if (!isCloudRefusal(res)) wrong.push(`${c.what}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    assert.deepEqual(wrong, []);
    assert.ok(accepted.length >= 1 && accepted.length < cases.length / 2, `${accepted.length} of ${cases.length} accepted`);
    // Described and kept: exactly the accepted ones; what a refused upload wrote was deleted.
    const described = (await t.server.context.storage.state.list(`${alice.id}:cloud-api:media`)).map((d) => d.id).sort();
    assert.deepEqual(described, [...accepted].sort());
    assert.deepEqual(await storedBlobs(), [...accepted].sort());
    for (const id of accepted) assert.ok(await t.server.context.storage.media.get(alice.id, id), id);
  });

  it('media ids of every wrong shape answer the Cloud API\'s error on GET and DELETE, and delete nothing', async () => {
    const form = new FormData();
    form.append('messaging_product', 'whatsapp');
    form.append('file', new Blob([new Uint8Array(SAMPLES.pdf)], { type: 'application/pdf' }), 'keep.pdf');
    const kept = (await (await fetch(`${t.url}/${CLOUD_VERSION}/${alice.id}/media`, { method: 'POST', headers: { authorization: `Bearer ${alice.key}` }, body: form })).json() as { id: string }).id;
    const ids = [
      'pm.000000000000000000000000', `${kept}x`, kept.toUpperCase(), `${kept}%00`, '%00', '..%2F..%2Fetc', 'pm.', 'x'.repeat(5000), '%F0%9F%91%8D', `${kept}%2F..`,
      '3EB0000000000000000001', `${alice.id}%3Acloud-api%3Amedia`,
    ];
    const queries = ['', '?fields=', '?fields=url,%00', `?phone_number_id=ins_other`, `?fields=${'a,'.repeat(300)}`];
    const wrong: string[] = [];
    for (const id of ids) {
      for (const query of queries) {
        for (const method of ['GET', 'DELETE']) {
          const res = await cloudRequest(t, alice.key, method, `/${CLOUD_VERSION}/${id}${query}`);
          if (!isCloudRefusal(res)) wrong.push(`${method} ${id.slice(0, 40)}${query.slice(0, 40)}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        }
      }
    }
    assert.deepEqual(wrong, []);
    const still = await cloudRequest(t, alice.key, 'GET', `/${CLOUD_VERSION}/${kept}`);
    assert.deepEqual([still.status, still.body.file_size], [200, SAMPLES.pdf.length]);
  });
});

describe('a malformed upload to a server process', () => {
  it('is refused and the process keeps serving (a part header busboy cannot parse was an uncaught exception: the process died)', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-cloud-upload-'));
    const server = await ServerChild.start(dataDir);
    try {
      const alice = await server.connectedSandbox({ name: 'alice' });
      const body = multipart([{ name: 'messaging_product', value: 'whatsapp' }, { name: 'file', value: SAMPLES.png, fileName: 'dot.png', type: '\u0000' }]);
      const res = await fetch(`${server.url}/${CLOUD_VERSION}/${alice.id}/media`, { method: 'POST', headers: { authorization: `Bearer ${alice.key}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: new Uint8Array(body) });
      assert.deepEqual([res.status, ((await res.json()) as any).error.code], [400, 100]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(server.child.exitCode, null, server.stderr.join(''));
      assert.equal((await server.request('GET', `/${alice.key}/instance`)).status, 200);
    } finally {
      await server.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
