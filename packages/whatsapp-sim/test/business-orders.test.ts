import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, useSimulator, waitFor } from './client.js';

describe('business collections and orders with the Baileys socket', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  const post = (number: string, path: string, body: unknown) =>
    fetch(`${sim.controlUrl}/accounts/${number}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const refusal = async (res: Response) => {
    const { error } = await res.json() as { error: { code: string; details?: { reason?: string; fields?: Array<{ field: string }> } } };
    return [res.status, error.code, error.details?.reason, error.details?.fields?.map((f) => f.field).join(',')];
  };

  it('answers getCollections with the collections and their products (limits honoured, hidden products only to the owner)', { timeout: 60_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659101', business: true });
    const customer = sim.simulator.createAccount({ number: '5511987659102' });
    const [bolo, torta, oculto] = ['Bolo', 'Torta', 'Oculto'].map((name, i) =>
      sim.simulator.addProduct(shop.number, { name, description: '', price: 1000 * (i + 1), currency: 'BRL', isHidden: name === 'Oculto' }));
    // Through the control API, as through the library.
    const created = await post(shop.number, '/collections', { name: 'Doces', productIds: [oculto!.id, bolo!.id, torta!.id] });
    assert.equal(created.status, 201);
    const doces = await created.json() as { id: string; name: string; products: Array<{ id: string }> };
    assert.deepEqual(doces.products.map((p) => p.id), [oculto!.id, bolo!.id, torta!.id]);
    const salgados = sim.simulator.addCollection(shop.number, 'Salgados', [torta!.id]);
    assert.deepEqual(await (await fetch(`${sim.controlUrl}/accounts/${shop.number}/collections`)).json(), sim.simulator.collections(shop.number));

    const owner = new TestClient(sim.url);
    await owner.link((qr) => sim.simulator.scanQr(shop.number, qr));
    const all = await owner.sock!.getCollections(undefined, 10);
    assert.deepEqual(all.collections.map((c) => [c.id, c.name, c.products.map((p) => p.name), c.status.status]),
      [[doces.id, 'Doces', ['Oculto', 'Bolo', 'Torta'], 'APPROVED'], [salgados.id, 'Salgados', ['Torta'], 'APPROVED']]);
    const first = await owner.sock!.getCollections(undefined, 1);
    assert.deepEqual(first.collections.map((c) => [c.id, c.products.map((p) => p.name)]), [[doces.id, ['Oculto']]]);

    const other = new TestClient(sim.url);
    await other.link((qr) => sim.simulator.scanQr(customer.number, qr));
    const seen = await other.sock!.getCollections(shop.jid, 10);
    assert.deepEqual(seen.collections.map((c) => c.products.map((p) => p.name)), [['Bolo', 'Torta'], ['Torta']]);
    await assert.rejects(other.sock!.getCollections(customer.jid, 10), /item-not-found/);
  });

  it('keeps a customer\'s order, sends the orderMessage and answers getOrderDetails to the seller with the token only', { timeout: 60_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659111', business: true });
    const customer = sim.simulator.createAccount({ number: '5511987659112' });
    const cafe = sim.simulator.addProduct(shop.number, { name: 'Café', description: '', price: 3990, currency: 'BRL', images: ['https://mmg.whatsapp.net/v/t62.product-catalog-image/cafe.enc'] });
    const filtro = sim.simulator.addProduct(shop.number, { name: 'Filtro', description: '', price: 1250, currency: 'BRL' });
    const seller = new TestClient(sim.url);
    await seller.link((qr) => sim.simulator.scanQr(shop.number, qr));

    const res = await post(customer.number, '/orders', { to: shop.number, items: [{ productId: cafe.id, quantity: 2 }, { productId: filtro.id }] });
    assert.equal(res.status, 201);
    const { order, sent } = await res.json() as { order: { id: string; token: string; total: number }; sent: { id: string } };
    assert.equal(order.total, 9230);
    assert.deepEqual(sim.simulator.orders(shop.number).map((o) => o.id), [order.id]);
    await waitFor(() => seller.seen.upserts.some((m) => m.key.id === sent.id), 'the order message on the seller');
    const message = seller.seen.upserts.find((m) => m.key.id === sent.id)!.message?.orderMessage;
    assert.deepEqual([message?.orderId, message?.token, message?.itemCount, message?.sellerJid, message?.orderTitle, Number(message?.totalAmount1000), message?.totalCurrencyCode],
      [order.id, order.token, 3, shop.jid, 'Café', 9_230_000, 'BRL']);

    const details = await seller.sock!.getOrderDetails(order.id, order.token);
    assert.deepEqual(details, {
      price: { total: 9230, currency: 'BRL' },
      products: [
        { id: cafe.id, name: 'Café', imageUrl: cafe.images[0], price: 3990, currency: 'BRL', quantity: 2 },
        { id: filtro.id, name: 'Filtro', imageUrl: undefined, price: 1250, currency: 'BRL', quantity: 1 },
      ],
    });
    await assert.rejects(seller.sock!.getOrderDetails(order.id, `x${order.token.slice(1)}`), /item-not-found/);
    await assert.rejects(seller.sock!.getOrderDetails('1111111111111111', order.token), /item-not-found/);
    // The customer's own companion is not the seller.
    const buyer = new TestClient(sim.url);
    await buyer.link((qr) => sim.simulator.scanQr(customer.number, qr));
    await assert.rejects(buyer.sock!.getOrderDetails(order.id, order.token), /item-not-found/);
  });

  it('the control API validates collections and orders: JSON errors and nothing changed', { timeout: 30_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659121', business: true });
    const person = sim.simulator.createAccount({ number: '5511987659122' });
    const bolo = sim.simulator.addProduct(shop.number, { name: 'Bolo', description: '', price: 1000, currency: 'BRL' });
    const usd = sim.simulator.addProduct(shop.number, { name: 'Import', description: '', price: 10, currency: 'USD' });
    const cases: Array<[string, string, unknown, unknown[]]> = [
      [shop.number, '/collections', { name: 'Doces', productIds: [bolo.id], colour: 'red' }, [400, 'validation_failed', undefined, 'body.colour']],
      [shop.number, '/collections', { name: '', productIds: [bolo.id] }, [400, 'validation_failed', 'invalid_collection', 'body.name']],
      [shop.number, '/collections', { name: 'Doces', productIds: [] }, [400, 'validation_failed', 'invalid_collection', 'body.productIds']],
      [shop.number, '/collections', { name: 'Doces', productIds: [bolo.id, bolo.id] }, [400, 'validation_failed', 'invalid_collection', 'body.productIds']],
      [shop.number, '/collections', { name: 'Doces', productIds: 'all' }, [400, 'validation_failed', undefined, 'body.productIds']],
      [shop.number, '/collections', { name: 'Doces', productIds: ['999'] }, [404, 'product_not_found', undefined, undefined]],
      [person.number, '/collections', { name: 'Doces', productIds: [] }, [409, 'not_a_business', undefined, undefined]],
      [person.number, '/orders', { to: shop.number, items: [{ productId: bolo.id, amount: 2 }] }, [400, 'validation_failed', undefined, 'body.items[0].amount']],
      [person.number, '/orders', { to: shop.number, items: [{ productId: bolo.id }], note: 'x' }, [400, 'validation_failed', undefined, 'body.note']],
      [person.number, '/orders', { to: shop.number, items: [{ productId: bolo.id, quantity: 1.5 }] }, [400, 'validation_failed', undefined, 'body.items[0].quantity']],
      [person.number, '/orders', { to: shop.number, items: [{ productId: bolo.id, quantity: 0 }] }, [400, 'validation_failed', 'invalid_order', 'body.items[0]']],
      [person.number, '/orders', { to: shop.number, items: [] }, [400, 'validation_failed', 'invalid_order', 'body.items']],
      [person.number, '/orders', { to: shop.number, items: [{ productId: bolo.id }, { productId: usd.id }] }, [400, 'validation_failed', 'invalid_order', 'body.items']],
      [person.number, '/orders', { to: shop.number, items: [{ productId: '999' }] }, [404, 'product_not_found', undefined, undefined]],
      [shop.number, '/orders', { to: person.number, items: [{ productId: bolo.id }] }, [409, 'not_a_business', undefined, undefined]],
      [shop.number, '/orders', { to: shop.number, items: [{ productId: bolo.id }] }, [400, 'validation_failed', 'invalid_order', 'body.to']],
    ];
    for (const [number, path, body, expected] of cases) assert.deepEqual(await refusal(await post(number, path, body)), expected, `${path} ${JSON.stringify(body)}`);
    assert.deepEqual(sim.simulator.collections(shop.number), []);
    assert.deepEqual(sim.simulator.orders(shop.number), []);
    assert.deepEqual(sim.simulator.received(shop.number), [], 'no order message sent');
  });
});
