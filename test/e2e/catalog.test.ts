import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InstanceClient } from '@parley/client';
import { expectError } from '../support/api-assertions.js';
import { apiError } from '../support/api-error.js';
import { jidOf, startWithPhones, type Phone } from '../support/conversation.js';
import { documentedClients, documentedRequests, type DocumentedRequest } from '../support/documented-answers.js';
import type { TestServer } from '../support/test-server.js';

const ALICE = '5511962000001';
const BOB = '5511962000002';
const UNKNOWN = '5511962009999';

interface Product {
  id: string;
  name: string;
  price: number;
  currency: string;
  [k: string]: unknown;
}

/** Spec 4.12 end to end: a sandbox instance's catalog, cursor pages, collections, and orders placed by another instance. */
describe('business catalog (spec 4.12)', () => {
  let t: TestServer;
  let api: DocumentedRequest;
  let client: (key: string) => InstanceClient;
  let alice: Phone;
  let bob: Phone;
  let offline: { key: string };
  const products: Product[] = [];

  before(async () => {
    ({ t, phones: { alice, bob } } = await startWithPhones({ alice: ALICE, bob: BOB }));
    api = await documentedRequests(t);
    client = await documentedClients(t);
    offline = await t.createInstance({ channel: 'sandbox', name: 'offline', number: '5511962000099' });
  });
  after(() => t.stop());

  const catalog = (p: Phone, query: { limit?: number; cursor?: string } = {}) => client(p.key).call('listCatalogProducts', { query });
  // The sandbox's order driver declares no typed body: it stays on documented raw requests.
  const order = (buyer: Phone, body: unknown) => api('POST', `/sandbox/${buyer.key}/order`, body);
  const image = (name: string) => [{ url: `https://cdn.example.com/${name}.jpg` }];

  it('starts empty: no products, no cursor, no collections', async () => {
    assert.deepEqual(await catalog(alice), { status: 200, data: [] });
    assert.deepEqual(await client(alice.key).call('listCatalogCollections'), { status: 200, data: [] });
  });

  it('creates a product with a stable id; it is listed', async () => {
    const input = {
      name: 'Coffee beans', description: 'Arabica, 1 kg', currency: 'BRL', price: 59.9, images: [{ url: 'https://cdn.example.com/coffee.jpg' }],
      originCountryCode: 'BR', retailerId: 'SKU-1', url: 'https://shop.example.com/coffee',
    };
    const res = await client(alice.key).call('createCatalogProduct', { body: input });
    assert.equal(res.status, 200, JSON.stringify(res));
    assert.match(res.data.id, /^\d{16}$/);
    assert.deepEqual(res, { status: 200, data: { id: res.data.id, ...input } });
    products.push(res.data);
    assert.deepEqual(await catalog(alice), { status: 200, data: [res.data] });
    // Another instance's catalog is its own.
    assert.deepEqual(await catalog(bob), { status: 200, data: [] });
  });

  it('pages by cursor in creation order; the last page has no cursor', async () => {
    for (const [name, price] of [['Mug', 35], ['Filter', 12.5], ['Grinder', 249], ['Kettle', 180]] as const) {
      const res = await client(alice.key).call('createCatalogProduct', { body: { name, currency: 'BRL', price, images: image(name) } });
      assert.deepEqual(res.data, { id: res.data.id, name, description: '', currency: 'BRL', price, images: [{ url: `https://cdn.example.com/${name}.jpg` }] });
      products.push(res.data);
    }
    assert.deepEqual(products.map((p) => p.id), [...products.map((p) => p.id)].sort());
    const first = await catalog(alice, { limit: 2 });
    assert.deepEqual(first, { status: 200, data: products.slice(0, 2), cursor: Buffer.from(products[1]!.id).toString('base64url') });
    const second = await catalog(alice, { limit: 2, cursor: first.cursor });
    assert.deepEqual(second, { status: 200, data: products.slice(2, 4), cursor: Buffer.from(products[3]!.id).toString('base64url') });
    const last = await catalog(alice, { limit: 2, cursor: second.cursor });
    assert.deepEqual(last, { status: 200, data: products.slice(4) });
    // The default limit (10) takes everything in one page; a page that ends exactly at the end has no cursor either.
    assert.deepEqual(await catalog(alice), { status: 200, data: products });
    assert.deepEqual(await catalog(alice, { limit: 5 }), { status: 200, data: products });
  });

  it('updates a product: the change is listed; an unknown product is 404', async () => {
    const res = await client(alice.key).call('updateCatalogProduct', { params: { productId: products[1]!.id }, body: { price: 39, isHidden: true } });
    assert.deepEqual(res, { status: 200, data: { ...products[1], price: 39, isHidden: true } });
    products[1] = res.data;
    assert.deepEqual((await catalog(alice)).data[1], products[1]);
    await assert.rejects(client(alice.key).call('updateCatalogProduct', { params: { productId: '1234567890123456' }, body: { price: 1 } }),
      apiError(404, 'product_not_found', 'product 1234567890123456 not found'));
  });

  it('lists the derived collection: every visible product, up to `limit`', async () => {
    const visible = products.filter((p) => !p.isHidden);
    assert.deepEqual(await client(alice.key).call('listCatalogCollections'), {
      status: 200, data: [{ id: 'all', name: 'All products', products: visible }],
    });
    assert.deepEqual((await client(alice.key).call('listCatalogCollections', { query: { limit: 2 } })).data[0]!.products, visible.slice(0, 2));
  });

  it('orders: a buyer instance orders, the seller gets the order message and reads the details with its token', async () => {
    const placed = await order(bob, { to: ALICE, items: [{ productId: products[0]!.id, quantity: 2 }, { productId: products[2]!.id }] });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    const { orderId, token, messageId } = placed.body.data;
    assert.match(orderId, /^\d{16}$/);
    assert.match(token, /^[A-Za-z0-9_-]{32}$/);
    const expected = {
      id: orderId,
      price: { total: 132.3, currency: 'BRL' },
      products: [
        { id: products[0]!.id, name: 'Coffee beans', price: 59.9, quantity: 2, currency: 'BRL', imageUrl: 'https://cdn.example.com/coffee.jpg' },
        { id: products[2]!.id, name: 'Filter', price: 12.5, quantity: 1, currency: 'BRL', imageUrl: 'https://cdn.example.com/Filter.jpg' },
      ],
    };
    assert.deepEqual(placed.body, { status: 200, data: { orderId, token, messageId, order: expected } });

    const received = await t.waitFor(async () => (await client(alice.key).call('listChatMessages', { params: { jid: BOB } })).data.find((m) => m.key.id === messageId),
      5000, 'the order message on the seller');
    assert.deepEqual(received.key, { remoteJid: jidOf(BOB), fromMe: false, id: messageId });
    assert.deepEqual(received.message, {
      orderMessage: {
        orderId, itemCount: 3, status: 'INQUIRY', surface: 'CATALOG', orderTitle: 'Coffee beans', sellerJid: jidOf(ALICE), token,
        totalAmount1000: 132300, totalCurrencyCode: 'BRL',
      },
    });
    const own = await t.waitFor(async () => (await client(bob.key).call('listChatMessages', { params: { jid: ALICE } })).data.find((m) => m.key.id === messageId),
      5000, 'the buyer\'s copy');
    assert.deepEqual(own.key, { remoteJid: jidOf(ALICE), fromMe: true, id: messageId });

    const getOrder = (p: Phone, id: string, orderToken: string) => client(p.key).call('getCatalogOrder', { params: { orderId: id }, query: { token: orderToken } });
    const details = await getOrder(alice, orderId, token);
    assert.deepEqual(details, { status: 200, data: expected });
    // The order keeps its prices when the catalog changes.
    await client(alice.key).call('updateCatalogProduct', { params: { productId: products[0]!.id }, body: { price: 99 } });
    assert.deepEqual((await getOrder(alice, orderId, token)).data, expected);
    await client(alice.key).call('updateCatalogProduct', { params: { productId: products[0]!.id }, body: { price: 59.9 } });

    await assert.rejects(getOrder(alice, orderId, `${token.slice(1)}x`), apiError(404, 'order_not_found', `order ${orderId} not found`));
    await assert.rejects(getOrder(alice, '1111111111111111', token), apiError(404, 'order_not_found'));
    // Orders live with the seller.
    await assert.rejects(getOrder(bob, orderId, token), apiError(404, 'order_not_found'));
  });

  it('refuses bad orders without recording or sending anything', async () => {
    const chatTotal = async () => (await client(alice.key).call('listChatMessages', { params: { jid: BOB } })).total;
    const before = await chatTotal();
    expectError(await order(bob, { to: ALICE, items: [{ productId: products[1]!.id, quantity: 1 }] }), 404, 'product_not_found',
      `product ${products[1]!.id} (body.items[0].productId) not found`);
    expectError(await order(bob, { to: ALICE, items: [{ productId: '9999999999999999' }] }), 404, 'product_not_found');
    expectError(await order(bob, { to: ALICE, items: [{ productId: products[0]!.id, quantity: 0 }] }), 400, 'validation_failed',
      'body.items[0].quantity must be >= 1');
    expectError(await order(bob, { to: ALICE, items: [{ productId: products[0]!.id, quantity: 1.5 }] }), 400, 'validation_failed',
      'body.items[0].quantity must be integer');
    expectError(await order(bob, { to: ALICE, items: [] }), 400, 'validation_failed', 'body.items must NOT have fewer than 1 items');
    expectError(await order(bob, { to: ALICE }), 400, 'validation_failed', 'body.items is required');
    expectError(await order(bob, { to: ALICE, items: [{ productId: products[0]!.id }], note: 'x' }), 400, 'validation_failed', 'body.note is not allowed');
    expectError(await order(bob, { to: UNKNOWN, items: [{ productId: products[0]!.id }] }), 404, 'number_not_registered', `sandbox number ${UNKNOWN} not found`);
    expectError(await order(alice, { to: ALICE, items: [{ productId: products[0]!.id }] }), 400, 'validation_failed',
      'body.to is this instance\'s own number: a phone cannot order from itself');
    const usd = (await client(alice.key).call('createCatalogProduct', { body: { name: 'Imported', currency: 'USD', price: 10, images: image('i') } })).data;
    expectError(await order(bob, { to: ALICE, items: [{ productId: products[0]!.id }, { productId: usd.id }] }), 400, 'validation_failed',
      'body.items[1] is priced in USD, not BRL: an order has one currency');
    await client(alice.key).call('deleteCatalogProduct', { params: { productId: usd.id } });
    await t.settle();
    assert.equal(await chatTotal(), before);
    // Only the order of the previous test is recorded in the seller's state.
    assert.equal((await t.server.context.storage.state.list(`${alice.id}:sandbox:orders`)).length, 1);
  });

  it('deletes a product: it leaves the list; a cursor past it still pages; deleting again is 404', async () => {
    const cursor = (await catalog(alice, { limit: 2 })).cursor;
    const res = await client(alice.key).call('deleteCatalogProduct', { params: { productId: products[1]!.id } });
    assert.deepEqual(res, { status: 200, message: `product ${products[1]!.id} deleted` });
    const removed = products.splice(1, 1)[0]!;
    assert.deepEqual((await catalog(alice)).data, products);
    assert.deepEqual((await catalog(alice, { limit: 2, cursor })).data, products.slice(1, 3));
    await assert.rejects(client(alice.key).call('deleteCatalogProduct', { params: { productId: removed.id } }), apiError(404, 'product_not_found'));
  });

  describe('bad input changes nothing', () => {
    it('rejects malformed products (400 naming the field)', async () => {
      const good = { name: 'X', currency: 'BRL', price: 1, images: [{ url: 'https://cdn.example.com/x.jpg' }] };
      // Bodies the typed client refuses at compile time (missing members, wrong types, unknown members): sent raw.
      const raw: [unknown, string | RegExp][] = [
        [{ ...good, images: undefined }, 'body.images is required'],
        [{ ...good, name: undefined }, 'body.name is required'],
        [{ ...good, price: '1' }, 'body.price must be number'],
        [{ ...good, color: 'red' }, 'body.color is not allowed'],
      ];
      for (const [body, message] of raw) {
        expectError(await api('POST', `/${alice.key}/business/catalog/product`, body), 400, 'validation_failed', message);
      }
      expectError(await api('PUT', `/${alice.key}/business/catalog/product/${products[0]!.id}`, { price: 'free' }), 400, 'validation_failed', 'body.price must be number');
      const typed: [typeof good & { originCountryCode?: string }, string | RegExp][] = [
        [{ ...good, currency: 'brl' }, 'body.currency must match pattern "^[A-Z]{3}$"'],
        [{ ...good, price: -1 }, 'body.price must be >= 0'],
        [{ ...good, images: [] }, 'body.images must NOT have fewer than 1 items'],
        [{ ...good, images: [{ url: 'ftp://x/y.jpg' }] }, /^body\.images\[0\]\.url must match pattern/],
        [{ ...good, originCountryCode: 'Brazil' }, 'body.originCountryCode must match pattern "^[A-Z]{2}$"'],
      ];
      for (const [body, message] of typed) {
        await assert.rejects(client(alice.key).call('createCatalogProduct', { body }), apiError(400, 'validation_failed', message), JSON.stringify(body));
      }
      await assert.rejects(client(alice.key).call('updateCatalogProduct', { params: { productId: products[0]!.id }, body: {} }),
        apiError(400, 'validation_failed', 'body must set at least one product field'));
      await assert.rejects(client(alice.key).call('deleteCatalogProduct', { params: { productId: 'not an id' } }), apiError(400, 'validation_failed'));
      assert.deepEqual((await catalog(alice)).data, products);
    });

    it('rejects bad paging and order queries', async () => {
      await assert.rejects(catalog(alice, { limit: 0 }), apiError(400, 'validation_failed', 'query.limit must be >= 1'));
      await assert.rejects(catalog(alice, { limit: 101 }), apiError(400, 'validation_failed', 'query.limit must be <= 100'));
      await assert.rejects(catalog(alice, { cursor: 'bm90LWEtY3Vyc29y' }), apiError(400, 'validation_failed', 'query.cursor is not a cursor of this catalog'));
      // A wrong type and a missing member, refused by the typed client at compile time: sent raw.
      expectError(await api('GET', `/${alice.key}/business/collections?limit=abc`), 400, 'validation_failed', 'query.limit must be integer');
      expectError(await api('GET', `/${alice.key}/business/order/1111111111111111`), 400, 'validation_failed', 'query.token is required');
    });

    it('answers 409 not_connected for an instance that is not connected, creating nothing', async () => {
      await assert.rejects(client(offline.key).call('listCatalogProducts'), apiError(409, 'not_connected'));
      await assert.rejects(client(offline.key).call('createCatalogProduct', { body: { name: 'X', currency: 'BRL', price: 1, images: image('x') } }), apiError(409, 'not_connected'));
      expectError(await api('POST', `/sandbox/${offline.key}/order`, { to: ALICE, items: [{ productId: products[0]!.id }] }), 409, 'not_connected');
      assert.deepEqual((await catalog(alice)).data, products);
    });
  });
});
