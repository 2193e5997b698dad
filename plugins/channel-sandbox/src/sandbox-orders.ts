import { jidUser, newMessageId, NotFoundError, toJid, USER_SUFFIX, ValidationError, type Order } from '@parley/core';
import { emitOwnCopy } from './own-copy.js';
import { SandboxCatalogStore } from './sandbox-catalog.js';
import type { SandboxDevice } from './sandbox-device.js';

/** The body of the sandbox order route: the seller's number and what to buy. */
export interface OrderRequest {
  to: string;
  items: { productId: string; quantity: number }[];
}

/** What the buyer gets back: the order, its id and token (as the seller received them) and the order message id. */
export interface PlacedOrder {
  orderId: string;
  token: string;
  messageId: string;
  order: Order;
}

const MAX_ITEMS = 100;
const MAX_QUANTITY = 10_000;

/** Validates the route body (driver routes get it unchecked); every error names its field. */
export function parseOrderRequest(body: unknown): OrderRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ValidationError('body must be a JSON object');
  const b = body as Record<string, unknown>;
  const extra = Object.keys(b).find((k) => k !== 'to' && k !== 'items');
  if (extra) throw new ValidationError(`body.${extra} is not allowed`);
  if (typeof b.to !== 'string') throw new ValidationError('body.to must be string');
  if (!Array.isArray(b.items) || b.items.length === 0 || b.items.length > MAX_ITEMS) {
    throw new ValidationError(`body.items must be an array of 1 to ${MAX_ITEMS} items`);
  }
  const items = b.items.map((raw: unknown, i) => {
    const item = (raw ?? {}) as Record<string, unknown>;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ValidationError(`body.items[${i}] must be object`);
    const unknownKey = Object.keys(item).find((k) => k !== 'productId' && k !== 'quantity');
    if (unknownKey) throw new ValidationError(`body.items[${i}].${unknownKey} is not allowed`);
    if (typeof item.productId !== 'string' || item.productId === '') throw new ValidationError(`body.items[${i}].productId must be a non-empty string`);
    const quantity = item.quantity ?? 1;
    if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
      throw new ValidationError(`body.items[${i}].quantity must be an integer from 1 to ${MAX_QUANTITY}`);
    }
    return { productId: item.productId, quantity };
  });
  return { to: b.to, items };
}

/**
 * A sandbox phone buys from another sandbox phone's catalog: the order is recorded in the seller's
 * state and reaches the seller as an `orderMessage` carrying the order id and token, which the
 * seller's GET /{key}/business/order/{orderId}?token= answers from. The buyer's phone keeps its copy.
 */
export async function placeOrder(buyer: SandboxDevice, body: unknown): Promise<PlacedOrder> {
  const request = parseOrderRequest(body);
  const sellerJid = toJid(request.to, 'body.to');
  if (!sellerJid.endsWith(USER_SUFFIX)) throw new ValidationError('body.to must be a phone number or a user JID');
  const seller = jidUser(sellerJid);
  if (seller === buyer.number) throw new ValidationError('body.to is this instance\'s own number: a phone cannot order from itself');
  buyer.requireConnected();
  const sellerInstance = await buyer.network.instanceOf(seller);
  if (!sellerInstance) throw new NotFoundError(`sandbox number ${seller}`, 'number_not_registered');
  const store = new SandboxCatalogStore(buyer.ctx.storage, buyer.network, sellerInstance);
  const { order, token } = await store.placeOrder(buyer.jid, request.items);
  const timestamp = Math.floor(Date.now() / 1000);
  const message = {
    orderMessage: {
      orderId: order.id, itemCount: order.products.reduce((n, line) => n + line.quantity, 0), status: 'INQUIRY', surface: 'CATALOG',
      orderTitle: order.products[0]!.name, sellerJid, token, totalAmount1000: Math.round(order.price.total * 1000),
      totalCurrencyCode: order.price.currency,
    },
  };
  const messageId = newMessageId();
  emitOwnCopy(buyer, { id: messageId, chatJid: sellerJid, timestamp, message });
  await buyer.network.send(seller, { kind: 'message', id: messageId, from: buyer.number, fromName: await buyer.displayName(), timestamp, message });
  return { orderId: order.id, token, messageId, order };
}
