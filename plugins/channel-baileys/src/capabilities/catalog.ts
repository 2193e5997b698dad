import { NotFoundError, type CatalogCapability, type Order, type Product, type ProductInput } from '@parley/core';
import type { ProductUpdate } from '@whiskeysockets/baileys';
import { isImage, isWhatsAppMediaUrl } from '../media/media-urls.js';
import { uploadProductImage } from '../media/product-images.js';
import { toProduct } from '../mapping/resources.js';
import type { AdapterRuntime } from '../runtime.js';
import { upstream } from '../util/errors.js';

/** Business catalog (spec 4.12) over Baileys' `w:biz:catalog` queries. */
export function catalogCapability(runtime: AdapterRuntime): CatalogCapability {
  const socket = () => runtime.connection.openSocket();

  /**
   * Baileys would fetch every image URL itself (`uploadingNecessaryImages`: the global `fetch`, redirects
   * followed, no guard, no proxy) and upload it racily (see {@link uploadProductImage}). Instead each image
   * is fetched through the guarded fetcher and uploaded here; Baileys gets only URLs on WhatsApp's media
   * servers, which it passes on as they are. Images already there are neither fetched nor uploaded.
   */
  async function images(s: ReturnType<typeof socket>, list: { url: string }[] | undefined): Promise<{ url: string }[]> {
    const out: { url: string }[] = [];
    for (const [i, image] of (list ?? []).entries()) {
      if (isWhatsAppMediaUrl(image.url)) out.push({ url: image.url });
      else {
        const { data } = await runtime.fetcher.fetch(image.url, `images[${i}].url`, isImage);
        out.push(await upstream('the product image upload', () => uploadProductImage(s, data)));
      }
    }
    return out;
  }

  return {
    async products({ limit, cursor }) {
      const s = socket();
      const page = await upstream('the catalog query', () => s.getCatalog({ limit, ...(cursor ? { cursor } : {}) }));
      return { products: page.products.map(toProduct), ...(page.nextPageCursor ? { cursor: page.nextPageCursor } : {}) };
    },
    async collections({ limit }) {
      const s = socket();
      const { collections } = await upstream('the collections query', () => s.getCollections(undefined, limit));
      return collections.map((c) => ({ id: c.id, name: c.name, products: c.products.map(toProduct) }));
    },
    async createProduct(input: ProductInput): Promise<Product> {
      const s = socket();
      const urls = await images(s, input.images);
      const created = await upstream('the product creation', () => s.productCreate({
        name: input.name, description: input.description, price: input.price, currency: input.currency,
        originCountryCode: input.originCountryCode, images: urls,
        ...(input.retailerId ? { retailerId: input.retailerId } : {}), ...(input.url ? { url: input.url } : {}),
        ...(input.isHidden !== undefined ? { isHidden: input.isHidden } : {}),
      }));
      return toProduct(created);
    },
    async updateProduct(productId, change) {
      const s = socket();
      const urls = change.images ? await images(s, change.images) : [];
      // Baileys writes only the fields present; an empty image list leaves the images as they are.
      const update = {
        ...(change.name !== undefined ? { name: change.name } : {}),
        ...(change.description !== undefined ? { description: change.description } : {}),
        ...(change.price !== undefined ? { price: change.price } : {}),
        ...(change.currency !== undefined ? { currency: change.currency } : {}),
        ...(change.retailerId !== undefined ? { retailerId: change.retailerId } : {}),
        ...(change.url !== undefined ? { url: change.url } : {}),
        ...(change.isHidden !== undefined ? { isHidden: change.isHidden } : {}),
        images: urls,
      } as ProductUpdate;
      return toProduct(await upstream('product', () => s.productUpdate(productId, update)));
    },
    async deleteProduct(productId) {
      const s = socket();
      const { deleted } = await upstream('the product deletion', () => s.productDelete([productId]));
      if (deleted === 0) throw new NotFoundError('product');
    },
    async order(orderId, token): Promise<Order> {
      const s = socket();
      // WhatsApp answers an unknown order or a wrong token with an iq error, not an order: 404 order_not_found, as documented.
      const details = await upstream('order', () => s.getOrderDetails(orderId, token), { codes: [404], what: `order ${orderId}`, code: 'order_not_found' });
      return {
        id: orderId,
        price: { total: details.price.total, currency: details.price.currency },
        products: details.products.map((p) => ({
          id: p.id, name: p.name, price: p.price, quantity: p.quantity, currency: p.currency, ...(p.imageUrl ? { imageUrl: p.imageUrl } : {}),
        })),
      };
    },
  };
}
