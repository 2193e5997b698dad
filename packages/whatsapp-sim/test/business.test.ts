import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getUrlFromDirectPath } from '@whiskeysockets/baileys';
import { describe, it } from 'node:test';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, useSimulator } from './client.js';

describe('business accounts: profile and catalog with the Baileys socket', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; }, { media: true });

  it('reads a business profile (and none for a personal account), and updates its own', { timeout: 60_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659001', pushName: 'Loja', business: true });
    const person = sim.simulator.createAccount({ number: '5511987659002', pushName: 'Ana' });
    sim.simulator.setBusinessProfile(shop.number, { description: 'Doces caseiros', websites: ['https://doces.example'], category: 'Padaria', email: 'oi@doces.example' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(shop.number, qr));
    const sock = client.sock!;
    const profile = await sock.getBusinessProfile(shop.jid);
    assert.deepEqual([profile?.wid, profile?.description, profile?.website, profile?.category, profile?.email],
      [shop.jid, 'Doces caseiros', ['https://doces.example'], 'Padaria', 'oi@doces.example']);
    assert.equal(await sock.getBusinessProfile(person.jid), undefined);
    await sock.updateBussinesProfile({ description: 'Doces e salgados', address: 'Rua A, 1' });
    assert.deepEqual(sim.simulator.businessProfile(shop.number), {
      description: 'Doces e salgados', address: 'Rua A, 1', websites: ['https://doces.example'], category: 'Padaria', email: 'oi@doces.example',
    });
  });

  it('pages through the catalog, creates, edits and deletes products (images uploaded to the media host)', { timeout: 60_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659011', business: true });
    for (const [i, name] of ['Bolo', 'Torta', 'Pudim'].entries()) sim.simulator.addProduct(shop.number, { name, description: `${name} inteiro`, price: 1000 * (i + 1), currency: 'BRL' });
    sim.simulator.addProduct(shop.number, { name: 'Oculto', description: '', price: 1, currency: 'BRL', isHidden: true });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(shop.number, qr));
    const sock = client.sock!;
    const first = await sock.getCatalog({ limit: 2 });
    assert.deepEqual(first.products.map((p) => p.name), ['Bolo', 'Torta']);
    assert.ok(first.nextPageCursor);
    const second = await sock.getCatalog({ limit: 2, cursor: first.nextPageCursor });
    assert.deepEqual(second.products.map((p) => [p.name, p.price, p.currency]), [['Pudim', 3000, 'BRL'], ['Oculto', 1, 'BRL']]);
    assert.equal(second.nextPageCursor, undefined);

    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');
    // Uploaded whole first: Baileys' own upload of image bytes (`uploadingNecessaryImages`) starts before
    // its temporary file is written, and the host refuses the truncated file (its hash is not the token).
    const dir = await mkdtemp(join(tmpdir(), 'sim-product-'));
    const file = join(dir, 'image');
    await writeFile(file, png);
    const { directPath } = await sock.waUploadToServer(file, { mediaType: 'product-catalog-image', fileEncSha256B64: createHash('sha256').update(png).digest('base64') })
      .finally(() => rm(dir, { recursive: true, force: true }));
    assert.deepEqual(sim.simulator.mediaFile(directPath), png);
    const created = await sock.productCreate({
      name: 'Brigadeiro', description: 'Cento', price: 9000, currency: 'BRL', images: [{ url: getUrlFromDirectPath(directPath) }], originCountryCode: 'BR',
    });
    assert.match(created.id, /^\d+$/);
    assert.equal(created.name, 'Brigadeiro');
    const stored = sim.simulator.catalog(shop.number).find((p) => p.id === created.id)!;
    assert.equal(stored.originCountryCode, 'BR');
    assert.match(stored.images[0]!, /^https:\/\/mmg\.whatsapp\.net\/v\/t62\.product-catalog-image\//);
    assert.deepEqual(sim.simulator.mediaFile(stored.images[0]!), png);
    const edited = await sock.productUpdate(created.id, { name: 'Brigadeiro gourmet', price: 9900, images: [] } as never);
    assert.deepEqual([edited.name, edited.price, edited.description], ['Brigadeiro gourmet', 9900, 'Cento']);
    assert.deepEqual(await sock.productDelete([created.id, '999']), { deleted: 1 });
    assert.equal(sim.simulator.catalog(shop.number).some((p) => p.id === created.id), false);
  });

  it('the control API validates business input: JSON 400 and nothing changed', { timeout: 30_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659021', business: true });
    const person = sim.simulator.createAccount({ number: '5511987659022' });
    const post = (number: string, path: string, body: unknown) =>
      fetch(`${sim.controlUrl}/accounts/${number}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    for (const body of [{ name: 'x', price: 'caro', currency: 'BRL' }, { name: '', price: 1, currency: 'BRL' }, { name: 'x', price: 1, currency: 'real' }]) {
      const res = await post(shop.number, '/catalog', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok((await res.json() as { error: { code: string } }).error.code);
    }
    assert.equal((await post(shop.number, '/business', { websites: 'https://x' })).status, 400);
    assert.equal((await post(shop.number, '/business', { slogan: 'x' })).status, 400);
    assert.equal((await post(person.number, '/catalog', { name: 'x', price: 1, currency: 'BRL' })).status, 409);
    assert.equal((await fetch(`${sim.controlUrl}/accounts/${person.number}/business`)).status, 404);
    assert.deepEqual(sim.simulator.catalog(shop.number), []);
    assert.deepEqual(sim.simulator.businessProfile(shop.number), {});
    const ok = await post(shop.number, '/catalog', { name: 'Café', price: 500, currency: 'BRL' });
    assert.equal(ok.status, 201);
  });
});
