import { s } from '../http/schema.js';

/** Page size of GET /{key}/business/catalog and of the products in each collection (spec 8 leaves it open). */
export const CATALOG_PAGE = { defaultLimit: 10, maxLimit: 100 } as const;

const httpUrl = s.string({ minLength: 8, maxLength: 2048, pattern: '^https?://\\S+$', examples: ['https://example.com/product.jpg'], description: 'http or https URL.' });

/** Product fields as callers write them (spec 2.10 plus WhatsApp's optional product fields). */
const productFields = {
  name: s.text(200),
  description: s.string({ maxLength: 5000 }),
  currency: s.string({ pattern: '^[A-Z]{3}$', examples: ['BRL'], description: 'ISO 4217 code, e.g. BRL.' }),
  price: s.number({ minimum: 0, maximum: 1_000_000_000_000 }),
  images: s.array(s.object({ url: httpUrl }, ['url']), { minItems: 1, maxItems: 10 }),
  originCountryCode: s.string({ pattern: '^[A-Z]{2}$', examples: ['BR'], description: 'ISO 3166-1 alpha-2 code, e.g. BR.' }),
  retailerId: s.string({ minLength: 1, maxLength: 100, description: 'Extension: the seller\'s own SKU.' }),
  url: httpUrl,
  isHidden: s.boolean({ description: 'Extension: hidden from buyers (and from collections).' }),
};

/** POST body: `name`, `currency`, `price` and at least one image are required. */
export const productCreateBody = s.object(productFields, ['name', 'currency', 'price', 'images']);

/** PUT body: any of the product fields (at least one, checked in the handler). */
export const productUpdateBody = s.object(productFields);

/** A product (spec 2.10) with its stable `id`. */
export const productSchema = s.openObject({ id: s.string(), ...productFields, name: s.string(), description: s.string() },
  ['id', 'name', 'description', 'currency', 'price', 'images']);

/** A collection of products. */
export const collectionSchema = s.openObject({ id: s.string(), name: s.string(), products: s.array(productSchema) }, ['id', 'name', 'products']);

/** An order (fields not shown in the spec, so they follow WhatsApp's order details). */
export const orderSchema = s.openObject({
  id: s.string(),
  price: s.openObject({ total: s.number(), currency: s.string() }, ['total', 'currency']),
  products: s.array(s.openObject({
    id: s.string(), name: s.string(), price: s.number(), quantity: s.integer(), currency: s.string(), imageUrl: s.string(),
  }, ['id', 'name', 'price', 'quantity', 'currency'])),
}, ['id', 'price', 'products']);
