import { ValidationError, type ProductInput } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, messageResponse, okResponse, s } from '../http/schema.js';
import {
  CATALOG_PAGE, collectionSchema, orderSchema, productCreateBody, productSchema, productUpdateBody,
} from '../schemas/catalog.schemas.js';
import { keyAnd, keyParams } from '../schemas/common.schemas.js';
import { connectedCapability } from './instance-guards.js';

type Scope = InstanceRuntime;
const tag = 'Business catalog';

const limitField = s.integer({ minimum: 1, maximum: CATALOG_PAGE.maxLimit, default: CATALOG_PAGE.defaultLimit });
const productParams = keyAnd({ productId: s.string({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) });
const UNKNOWN_PRODUCT = 'Unknown product: 404 `product_not_found`.';

/** Spec 4.12: the business catalog (products by cursor pages, collections) and order details. */
export function catalogRoutes(_ctx: ServerContext): RouteDefinition[] {
  const catalog = (rt: Scope) => connectedCapability(rt, 'catalog');
  return [
    defineRoute<unknown, { limit: number; cursor?: string }, unknown, Scope>({
      method: 'get', path: '/{key}/business/catalog', operationId: 'listCatalogProducts', tag, auth: 'instance', params: keyParams,
      summary: 'Products, one page at a time',
      description: `\`limit\`: 1 to ${CATALOG_PAGE.maxLimit}, default ${CATALOG_PAGE.defaultLimit}. Pass the answer's \`cursor\` to get the next page; `
        + '`cursor` is absent on the last page. A cursor that is not one of this catalog is a 400 naming `query.cursor`.',
      query: s.object({ limit: limitField, cursor: s.string({ minLength: 1, maxLength: 512, description: 'The `cursor` of the previous page.' }) }),
      response: okResponse({ data: s.array(productSchema), cursor: s.string({ description: 'Token of the next page; absent on the last page.' }) }, ['data']),
      errors: [409, 422],
      handler: async ({ scope, query }) => {
        const page = await catalog(scope).products({ limit: query.limit, ...(query.cursor !== undefined ? { cursor: query.cursor } : {}) });
        return { data: page.products, ...(page.cursor ? { cursor: page.cursor } : {}) };
      },
    }),
    defineRoute<unknown, { limit: number }, unknown, Scope>({
      method: 'get', path: '/{key}/business/collections', operationId: 'listCatalogCollections', tag, auth: 'instance', params: keyParams,
      summary: 'Collections of products',
      description: `Answers \`data\`: the collections, each with up to \`limit\` products (1 to ${CATALOG_PAGE.maxLimit}, default ${CATALOG_PAGE.defaultLimit}).`,
      query: s.object({ limit: limitField }),
      response: dataResponse(s.array(collectionSchema)), errors: [409, 422],
      handler: async ({ scope, query }) => ({ data: await catalog(scope).collections({ limit: query.limit }) }),
    }),
    defineRoute<unknown, unknown, ProductInput, Scope>({
      method: 'post', idempotent: true, path: '/{key}/business/catalog/product', operationId: 'createCatalogProduct', tag, auth: 'instance', params: keyParams,
      summary: 'Add a product', description: 'Answers `data`: the new product with its `id`.',
      body: productCreateBody, response: dataResponse(productSchema), errors: [409, 422],
      handler: async ({ scope, body }) => ({ data: await catalog(scope).createProduct({ ...body, description: body.description ?? '' }) }),
    }),
    defineRoute<{ productId: string }, unknown, Partial<ProductInput>, Scope>({
      method: 'put', path: '/{key}/business/catalog/product/{productId}', operationId: 'updateCatalogProduct', tag, auth: 'instance', params: productParams,
      summary: 'Change a product', description: `Any of the product fields. Answers \`data\`: the updated product. ${UNKNOWN_PRODUCT}`,
      body: productUpdateBody, response: dataResponse(productSchema), errors: [409, 422],
      handler: async ({ scope, params, body }) => {
        if (Object.keys(body).length === 0) throw new ValidationError('body must set at least one product field');
        return { data: await catalog(scope).updateProduct(params.productId, body) };
      },
    }),
    defineRoute<{ productId: string }, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/business/catalog/product/{productId}', operationId: 'deleteCatalogProduct', tag, auth: 'instance', params: productParams,
      summary: 'Delete a product', description: `Answers \`message\`. ${UNKNOWN_PRODUCT}`, response: messageResponse, errors: [409, 422],
      handler: async ({ scope, params }) => {
        await catalog(scope).deleteProduct(params.productId);
        return { message: `product ${params.productId} deleted` };
      },
    }),
    defineRoute<{ orderId: string }, { token: string }, unknown, Scope>({
      method: 'get', path: '/{key}/business/order/{orderId}', operationId: 'getCatalogOrder', tag, auth: 'instance',
      params: keyAnd({ orderId: s.string({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) }),
      summary: 'Order details',
      description: 'The `orderId` and `token` come with the order message the buyer sent. Answers `data`: `id`, `price` {`total`, `currency`}, '
        + '`products` [{`id`, `name`, `price`, `quantity`, `currency`, `imageUrl`}]. Unknown order or wrong token: 404 `order_not_found`.',
      query: s.object({ token: s.string({ minLength: 1, maxLength: 512 }) }, ['token']),
      response: dataResponse(orderSchema), errors: [409, 422],
      handler: async ({ scope, params, query }) => ({ data: await catalog(scope).order(params.orderId, query.token) }),
    }),
  ];
}
