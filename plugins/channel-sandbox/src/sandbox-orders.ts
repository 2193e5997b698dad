import { newMessageId, NotFoundError, ValidationError, type Order } from '@parley/core';
import { jidUser, toJid, USER_SUFFIX } from '@parley/whatsapp-proto';
import { emitOwnCopy } from './own-copy.js';
import { SandboxCatalogStore } from './sandbox-catalog.js';
import type { SandboxDevice } from './sandbox-device.js';

/** The body of the sandbox order route (checked against ORDER_BODY): the seller's number and what to buy. */
export interface OrderRequest {
  to: string;
  /** `quantity` defaults to 1. */
  items: { productId: string; quantity?: number }[];
}

/** What the buyer gets back: the order, its id and token (as the seller received them) and the order message id. */
export interface PlacedOrder {
  orderId: string;
  token: string;
  messageId: string;
  order: Order;
}

/**
 * A sandbox phone buys from another sandbox phone's catalog: the order is recorded in the seller's
 * state and reaches the seller as an `orderMessage` carrying the order id and token, which the
 * seller's GET /{key}/business/order/{orderId}?token= answers from. The buyer's phone keeps its copy.
 */
export async function placeOrder(buyer: SandboxDevice, request: OrderRequest): Promise<PlacedOrder> {
  const sellerJid = toJid(request.to, 'body.to');
  if (!sellerJid.endsWith(USER_SUFFIX)) throw new ValidationError('body.to must be a phone number or a user JID');
  const seller = jidUser(sellerJid);
  if (seller === buyer.number) throw new ValidationError('body.to is this instance\'s own number: a phone cannot order from itself');
  buyer.requireConnected();
  const sellerInstance = await buyer.network.instanceOf(seller);
  if (!sellerInstance) throw new NotFoundError(`sandbox number ${seller}`, 'number_not_registered');
  const store = new SandboxCatalogStore(buyer.ctx.storage, buyer.network, sellerInstance);
  const { order, token } = await store.placeOrder(buyer.jid, request.items.map((item) => ({ productId: item.productId, quantity: item.quantity ?? 1 })));
  const timestamp = Math.floor(buyer.network.now() / 1000);
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
