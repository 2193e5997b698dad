import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import {
  NotFoundError, ValidationError, type Collection, type Order, type Product, type ProductInput, type ProductPage, type Storage,
} from '@parley/core';
import { phoneNamespace, type SandboxNetwork } from './sandbox-network.js';

/** The one collection the sandbox derives from a catalog: every product that is not hidden. */
export const DEFAULT_COLLECTION = { id: 'all', name: 'All products' } as const;

/** An order as the seller's phone keeps it; the token is what its details are asked with. */
interface StoredOrder {
  order: Order;
  token: string;
  /** Buyer's JID. */
  buyer: string;
  /** Unix seconds. */
  createdAt: number;
}

const PRODUCT_ID = /^\d{16}$/;

/** Products of a phone, one document each, by id; ids grow with creation time, so the listing is in creation order. */
function productsNamespace(instanceId: string): string {
  return `${phoneNamespace(instanceId)}:catalog`;
}

function ordersNamespace(instanceId: string): string {
  return `${phoneNamespace(instanceId)}:orders`;
}

function sameToken(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The opaque cursor after a product: the product id, base64url. */
export function cursorAfter(productId: string): string {
  return Buffer.from(productId, 'utf8').toString('base64url');
}

/**
 * The business catalog of one sandbox phone (real per-instance state, cleared with the instance):
 * products with stable 16-digit ids, cursor pages in creation order, and the orders buyers place.
 */
export class SandboxCatalogStore {
  constructor(
    private readonly storage: Storage,
    private readonly network: SandboxNetwork,
    private readonly instanceId: string,
  ) {}

  /** Every product, oldest first. */
  async all(): Promise<Product[]> {
    return (await this.storage.state.list<Product>(productsNamespace(this.instanceId))).map((e) => e.value);
  }

  async get(productId: string): Promise<Product | null> {
    return PRODUCT_ID.test(productId) ? this.storage.state.get<Product>(productsNamespace(this.instanceId), productId) : null;
  }

  private async existing(productId: string): Promise<Product> {
    const product = await this.get(productId);
    if (!product) throw new NotFoundError(`product ${productId}`, 'product_not_found');
    return product;
  }

  /** Up to `limit` products after `cursor`; `cursor` of the answer is absent on the last page. */
  async page(limit: number, cursor?: string): Promise<ProductPage> {
    let after = '';
    if (cursor !== undefined) {
      after = Buffer.from(cursor, 'base64url').toString('utf8');
      if (!PRODUCT_ID.test(after) || cursorAfter(after) !== cursor) throw new ValidationError('query.cursor is not a cursor of this catalog');
    }
    const rest = (await this.all()).filter((p) => p.id > after);
    const products = rest.slice(0, limit);
    return { products, ...(rest.length > limit ? { cursor: cursorAfter(products[products.length - 1]!.id) } : {}) };
  }

  /** The derived default collection, holding up to `limit` visible products; none for an empty catalog. */
  async collections(limit: number): Promise<Collection[]> {
    const visible = (await this.all()).filter((p) => !p.isHidden);
    return visible.length ? [{ ...DEFAULT_COLLECTION, products: visible.slice(0, limit) }] : [];
  }

  create(input: ProductInput): Promise<Product> {
    return this.network.serialize(`catalog:${this.instanceId}`, async () => {
      const last = (await this.all()).at(-1)?.id;
      // Time-based ids (ms × 1000) keep 16 digits and creation order; the previous id + 1 keeps them unique.
      const id = String(Math.max(this.network.now() * 1000, last ? Number(last) + 1 : 0));
      const product: Product = { id, ...input };
      await this.storage.state.put(productsNamespace(this.instanceId), id, product);
      return product;
    });
  }

  update(productId: string, change: Partial<ProductInput>): Promise<Product> {
    return this.network.serialize(`catalog:${this.instanceId}`, async () => {
      const product: Product = { ...(await this.existing(productId)), ...change, id: productId };
      await this.storage.state.put(productsNamespace(this.instanceId), productId, product);
      return product;
    });
  }

  delete(productId: string): Promise<void> {
    return this.network.serialize(`catalog:${this.instanceId}`, async () => {
      await this.existing(productId);
      await this.storage.state.delete(productsNamespace(this.instanceId), productId);
    });
  }

  /**
   * Records an order of visible products for a buyer and answers it with its token. Prices are
   * copied, so later catalog changes do not alter the order. Throws 404 for an unknown or hidden
   * product, 400 when the items mix currencies.
   */
  async placeOrder(buyer: string, items: { productId: string; quantity: number }[]): Promise<{ order: Order; token: string }> {
    const lines: Order['products'] = [];
    for (const [i, item] of items.entries()) {
      const product = await this.get(item.productId);
      if (!product || product.isHidden) throw new NotFoundError(`product ${item.productId} (body.items[${i}].productId)`, 'product_not_found');
      lines.push({
        id: product.id, name: product.name, price: product.price, quantity: item.quantity, currency: product.currency,
        ...(product.images[0] ? { imageUrl: product.images[0].url } : {}),
      });
    }
    const currency = lines[0]!.currency;
    const other = lines.findIndex((line) => line.currency !== currency);
    if (other >= 0) throw new ValidationError(`body.items[${other}] is priced in ${lines[other]!.currency}, not ${currency}: an order has one currency`);
    // Summed in thousandths, as WhatsApp prices are, so decimals do not drift.
    const total = lines.reduce((sum, line) => sum + Math.round(line.price * 1000) * line.quantity, 0) / 1000;
    const order: Order = { id: `${randomInt(1_000_000, 10_000_000)}${String(randomInt(0, 1_000_000_000)).padStart(9, '0')}`, price: { total, currency }, products: lines };
    const token = randomBytes(24).toString('base64url');
    const stored: StoredOrder = { order, token, buyer, createdAt: Math.floor(this.network.now() / 1000) };
    await this.storage.state.put(ordersNamespace(this.instanceId), order.id, stored);
    return { order, token };
  }

  /** An order's details; an unknown order and a wrong token are both 404, so tokens cannot be probed. */
  async order(orderId: string, token: string): Promise<Order> {
    const stored = await this.storage.state.get<StoredOrder>(ordersNamespace(this.instanceId), orderId);
    if (!stored || !sameToken(stored.token, token)) throw new NotFoundError(`order ${orderId}`, 'order_not_found');
    return stored.order;
  }
}
