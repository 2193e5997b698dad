import { NotFoundError, UpstreamError, ValidationError, type CallLinkType, type OutgoingContent } from '@parley/core';
import { toJid } from '@parley/whatsapp-proto';
import type { Product as WAProduct, WASendableProduct } from '@whiskeysockets/baileys';
import { callLink, type OutboundEnv } from '../mapping/outbound-content.js';
import { isImage } from '../media/media-urls.js';
import { toWebpSticker } from '@parley/whatsapp-proto';
import type { AdapterRuntime } from '../runtime.js';
import type { BaileysSocket } from '../socket.js';
import { upstream } from '../util/errors.js';

/** Catalog pages read while looking for a product (100 products each). */
const CATALOG_PAGES = 10;
const CATALOG_PAGE_SIZE = 100;

/** What a send needs loaded before it can be mapped: the content as it goes out and the data fetched for it. */
export interface PreparedSend {
  content: OutgoingContent;
  extras: Omit<OutboundEnv, 'now'>;
}

/**
 * Loads and converts what Baileys would otherwise fetch or get wrong itself: a call link to create,
 * stickers converted to WebP, the product card from the owner's catalog (image as bytes), and the
 * group picture of an invite (Baileys' `groupInvite` content fetches it with the global `fetch`).
 */
export async function prepareSend(runtime: AdapterRuntime, socket: BaileysSocket, content: OutgoingContent): Promise<PreparedSend> {
  switch (content.type) {
    case 'call-link':
      return { content: content.link ? content : { ...content, link: await createCallLink(socket, content.callType) }, extras: {} };
    case 'sticker': {
      const sticker = await toWebpSticker(content.media);
      return { content: { ...content, media: { ...content.media, data: sticker.data, mimetype: sticker.mimetype } }, extras: {} };
    }
    case 'product':
      return { content, extras: { product: await productCard(runtime, socket, content) } };
    case 'group-invite': {
      const thumbnail = await groupThumbnail(runtime, socket, content.groupJid);
      return { content, extras: thumbnail ? { inviteThumbnail: thumbnail } : {} };
    }
    default:
      return { content, extras: {} };
  }
}

/** A WhatsApp call link for a new call of `type`. */
export async function createCallLink(socket: BaileysSocket, type: CallLinkType): Promise<string> {
  const token = await upstream('the call link creation', () => socket.createCallLink(type));
  if (!token) throw new UpstreamError('WhatsApp did not answer a call link', { retryable: true });
  return callLink(type, token);
}

async function findProduct(socket: BaileysSocket, owner: string, productId: string): Promise<WAProduct> {
  let cursor: string | undefined;
  for (let page = 0; page < CATALOG_PAGES; page++) {
    const result = await upstream('the catalog query', () => socket.getCatalog({ jid: owner, limit: CATALOG_PAGE_SIZE, ...(cursor ? { cursor } : {}) }));
    const found = result.products.find((p) => p.id === productId);
    if (found) return found;
    cursor = result.nextPageCursor;
    if (!cursor) break;
  }
  throw new NotFoundError(`product ${productId} in the catalog of ${owner}`, 'product_not_found');
}

/**
 * The full product card, as WhatsApp's apps send it and as Baileys' `{ product, businessOwnerJid }`
 * content builds it: the product's title, description, price and currency, retailer id and link, and
 * its first image, uploaded by Baileys from the bytes fetched here. WhatsApp catalogs hold prices in
 * thousandths of the currency unit, which is what the card's `priceAmount1000` carries.
 */
async function productCard(runtime: AdapterRuntime, socket: BaileysSocket, content: Extract<OutgoingContent, { type: 'product' }>) {
  const owner = toJid(content.businessOwnerJid, 'businessOwnerJid');
  const product = await findProduct(socket, owner, content.productId);
  const images = [...new Set(Object.values(product.imageUrls ?? {}).filter((u) => typeof u === 'string' && u !== ''))];
  const imageUrl = product.imageUrls?.original || images[0];
  if (!imageUrl) throw new ValidationError(`product ${content.productId} has no image; WhatsApp's product card needs one`);
  const image = await runtime.fetcher.fetch(imageUrl, 'the product image', isImage);
  const card: WASendableProduct = {
    productImage: image.data,
    productId: product.id,
    title: product.name,
    ...(product.description ? { description: product.description } : {}),
    currencyCode: product.currency,
    priceAmount1000: product.price,
    ...(product.retailerId ? { retailerId: product.retailerId } : {}),
    ...(product.url ? { url: product.url } : {}),
    productImageCount: images.length,
  };
  return { product: card, businessOwnerJid: owner };
}

/**
 * The group's picture for the invite card, fetched through the guarded fetcher. A group without a
 * picture (WhatsApp answers 404) or a picture that cannot be fetched leaves the card without one, as
 * Baileys does.
 */
async function groupThumbnail(runtime: AdapterRuntime, socket: BaileysSocket, groupJid: string): Promise<Buffer | undefined> {
  const url = await socket.profilePictureUrl(groupJid, 'preview').catch(() => undefined);
  if (!url) return undefined;
  try {
    return (await runtime.fetcher.fetch(url, 'the group picture', isImage)).data;
  } catch (err) {
    runtime.logger.debug({ err, groupJid }, 'group picture not fetched for the invite card');
    return undefined;
  }
}
