import { randomBytes } from 'node:crypto';
import { getBinaryNodeChild } from '@whiskeysockets/baileys';
import type { BinaryNode, proto } from '@whiskeysockets/baileys';
import { IqError, SERVER } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import type { Account } from '../network/model.js';
import { SimError } from '../network/errors.js';
import { requireSession } from './prekeys.js';
import { catalogId, type Business } from './business.js';

/** One line of an order: the product as it was when ordered, and how many. */
export interface OrderLine {
  id: string;
  name: string;
  price: number;
  currency: string;
  quantity: number;
  imageUrl?: string;
}

/** An order a customer placed from a business's catalog, as the server keeps it. */
export interface Order {
  id: string;
  /** What the seller's client shows to read the order (`getOrderDetails`' token, base64). */
  token: string;
  seller: string;
  buyer: string;
  products: OrderLine[];
  total: number;
  currency: string;
}

/** An item a customer orders: a product of the seller's catalog and how many (1–10000, default 1). */
export interface OrderItem {
  productId: string;
  quantity?: number;
}

const MAX_ITEMS = 100;
const MAX_QUANTITY = 10_000;

const leaf = (tag: string, value: string): BinaryNode => ({ tag, attrs: {}, content: Buffer.from(value) });

/**
 * Orders placed from business catalogs: the server records each one (the products at their prices then, the
 * quantities, a token) and answers the seller's `<iq xmlns="fb:thrift_iq"><order op="get" id><token>` (Baileys
 * getOrderDetails) with the `<order>` Utils/business.js parseOrderDetailsNode reads. Only the seller reads an
 * order, with its token. An unknown order, a wrong token or another account's order all answer 404
 * `item-not-found`: we know of no public source for WhatsApp's code here, so the simulator answers as for any
 * missing item, and says nothing about whether the order exists (Parley maps it to 404 `order_not_found`).
 */
export class Orders {
  private readonly orders = new Map<string, Order>();

  constructor(private readonly network: Network, private readonly business: Business) {}

  /** The orders customers placed with the business `seller`, oldest first. */
  of(seller: Account): Order[] {
    return [...this.orders.values()].filter((o) => o.seller === seller.number);
  }

  /** Records an order of `buyer` from `seller`'s catalog (visible products of one currency) and answers the `orderMessage` its phone sends. */
  place(buyer: Account, seller: Account, items: OrderItem[]): { order: Order; message: proto.IMessage } {
    if (!seller.business) throw new SimError(409, 'not_a_business', `${seller.number} is not a business account`, { number: seller.number });
    if (buyer === seller) throw new SimError(400, 'invalid_order', 'a business does not order from itself', { field: 'to' });
    if (!Array.isArray(items) || items.length === 0 || items.length > MAX_ITEMS) {
      throw new SimError(400, 'invalid_order', `items must list 1 to ${MAX_ITEMS} items`, { field: 'items' });
    }
    const products = items.map((item, i) => {
      const quantity = item?.quantity ?? 1;
      if (typeof item?.productId !== 'string' || !Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
        throw new SimError(400, 'invalid_order', `items[${i}] needs productId (a string) and quantity (an integer 1–${MAX_QUANTITY})`, { field: `items[${i}]` });
      }
      const product = this.business.product(seller, item.productId);
      if (product.isHidden) throw new SimError(404, 'product_not_found', `product ${product.id} is not in ${seller.number}'s catalog`, { productId: product.id });
      return { id: product.id, name: product.name, price: product.price, currency: product.currency, quantity, ...(product.images[0] ? { imageUrl: product.images[0] } : {}) };
    });
    const currency = products[0]!.currency;
    if (products.some((p) => p.currency !== currency)) throw new SimError(400, 'invalid_order', 'the products of an order share one currency', { field: 'items' });
    const total = products.reduce((sum, p) => sum + p.price * p.quantity, 0);
    const order: Order = {
      id: catalogId(), token: randomBytes(24).toString('base64'),
      seller: seller.number, buyer: buyer.number, products, total, currency,
    };
    this.orders.set(order.id, order);
    const orderMessage: proto.Message.IOrderMessage = {
      orderId: order.id, itemCount: products.reduce((n, p) => n + p.quantity, 0), status: 1 /* INQUIRY */, surface: 1 /* CATALOG */,
      orderTitle: products[0]!.name, sellerJid: `${seller.number}@${SERVER}`, token: order.token,
      totalAmount1000: Math.round(total * 1000), totalCurrencyCode: currency,
    };
    return { order, message: { orderMessage } };
  }

  feature(): Feature {
    return {
      iq: {
        'fb:thrift_iq': (connection, iq) => {
          const { account } = requireSession(this.network, connection);
          const node = getBinaryNodeChild(iq, 'order');
          if (!node || node.attrs.op !== 'get') throw new IqError(400, 'bad-request');
          const token = getBinaryNodeChild(node, 'token')?.content;
          const order = this.orders.get(node.attrs.id ?? '');
          const given = token instanceof Uint8Array ? Buffer.from(token).toString('utf8') : token;
          if (!order || order.seller !== account.number || given !== order.token) throw new IqError(404, 'item-not-found');
          return [orderNode(order)];
        },
      },
    };
  }
}

function orderNode(order: Order): BinaryNode {
  return {
    tag: 'order', attrs: { op: 'get', id: order.id },
    content: [
      ...order.products.map((p): BinaryNode => ({
        tag: 'product', attrs: {}, content: [
          leaf('id', p.id), leaf('name', p.name), leaf('price', String(p.price)), leaf('currency', p.currency), leaf('quantity', String(p.quantity)),
          ...(p.imageUrl ? [{ tag: 'image', attrs: {}, content: [leaf('url', p.imageUrl)] }] : []),
        ],
      })),
      { tag: 'price', attrs: {}, content: [leaf('total', String(order.total)), leaf('currency', order.currency)] },
    ],
  };
}
