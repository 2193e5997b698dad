import { randomInt } from 'node:crypto';
import { getBinaryNodeChild, getBinaryNodeChildren } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { IqError, SERVER } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import type { Account } from '../network/model.js';
import { SimError } from '../network/errors.js';
import { requireSession } from './prekeys.js';

/** A business account's profile, as `getBusinessProfile` reads it. */
export interface BusinessProfile {
  description?: string;
  address?: string;
  email?: string;
  websites?: string[];
  category?: string;
}

/** A catalog product, as `w:biz:catalog` carries it. */
export interface Product {
  id: string;
  name: string;
  description: string;
  price: number;
  currency: string;
  retailerId?: string;
  url?: string;
  isHidden: boolean;
  images: string[];
  originCountryCode?: string;
}

/** A collection of catalog products, as `<collections>` carries it (products by id, in the order given). */
export interface Collection {
  id: string;
  name: string;
  productIds: string[];
}

/** A collection with its products, as the control API shows it. */
export interface CollectionView {
  id: string;
  name: string;
  products: Product[];
}

/** Most products a catalog holds in the simulator, and most a page may ask for. */
const MAX_PRODUCTS = 500;
/** Most collections an account has, and most products in one. */
const MAX_COLLECTIONS = 50;
const MAX_COLLECTION_ITEMS = 100;
const MAX_PAGE = 100;
const MAX_FIELD = 5000;

/** A 16-digit id, as WhatsApp's product, collection and order ids look. */
export const catalogId = (): string => `${randomInt(1_000_000, 9_999_999)}${randomInt(100_000_000, 999_999_999)}`;

const string = (node: BinaryNode | undefined): string | undefined =>
  node?.content instanceof Uint8Array ? Buffer.from(node.content).toString('utf8') : typeof node?.content === 'string' ? node.content : undefined;
const leaf = (tag: string, value: string | undefined): BinaryNode[] => (value === undefined ? [] : [{ tag, attrs: {}, content: Buffer.from(value) }]);

/**
 * Business accounts (created with `business: true`): their profile (`<iq xmlns="w:biz">`, Baileys
 * getBusinessProfile / updateBussinesProfile; whatsmeow GetBusinessProfile reads the same
 * `<business_profile><profile jid>` answer) and their product catalog (`xmlns="w:biz:catalog"`:
 * product_catalog pages with an `after` cursor, product_catalog_add / _edit / _delete, collections), as
 * Baileys' Socket/business.js and Utils/business.js build and parse them. Only a business account has a
 * profile or edits a catalog (others: 403 forbidden); a catalog is readable by any logged-in client.
 */
export class Business {
  private readonly profiles = new Map<string, BusinessProfile>();
  private readonly catalogs = new Map<string, Product[]>();
  private readonly collectionLists = new Map<string, Collection[]>();

  constructor(private readonly network: Network) {}

  profileOf(account: Account): BusinessProfile | undefined {
    return account.business ? this.profiles.get(account.number) ?? {} : undefined;
  }

  /** Changes the fields given (the others stay); control API and `w:biz` set alike. */
  setProfile(account: Account, change: BusinessProfile): BusinessProfile {
    if (!account.business) throw new SimError(409, 'not_a_business', `${account.number} is not a business account`, { number: account.number });
    for (const [key, value] of Object.entries(change)) {
      const values = key === 'websites' ? value : [value];
      if (!Array.isArray(values) || values.length > 2 || !values.every((v) => typeof v === 'string' && v.length <= MAX_FIELD)) {
        throw new SimError(400, 'invalid_profile', `${key} must be ${key === 'websites' ? 'at most 2 strings' : 'a string'} of at most ${MAX_FIELD} characters`, { field: key });
      }
    }
    const profile = { ...this.profileOf(account), ...change };
    this.profiles.set(account.number, profile);
    return profile;
  }

  catalog(account: Account): Product[] {
    return [...(this.catalogs.get(account.number) ?? [])];
  }

  addProduct(account: Account, input: Omit<Product, 'id' | 'isHidden' | 'images'> & Partial<Pick<Product, 'isHidden' | 'images'>>): Product {
    if (!account.business) throw new SimError(409, 'not_a_business', `${account.number} is not a business account`, { number: account.number });
    const list = this.catalogs.get(account.number) ?? [];
    if (list.length >= MAX_PRODUCTS) throw new SimError(409, 'catalog_full', `a catalog holds at most ${MAX_PRODUCTS} products`);
    checkProduct(input);
    const product: Product = { isHidden: false, images: [], ...input, id: catalogId() };
    this.catalogs.set(account.number, [...list, product]);
    return product;
  }

  /** The product `id` of `account`'s catalog (404 `product_not_found`). */
  product(account: Account, id: string): Product {
    const product = this.catalogs.get(account.number)?.find((p) => p.id === id);
    if (!product) throw new SimError(404, 'product_not_found', `product ${id} is not in ${account.number}'s catalog`, { productId: id });
    return product;
  }

  /** A business account's collections with their products (a product deleted since is left out). */
  collections(account: Account): CollectionView[] {
    const catalog = this.catalog(account);
    return (this.collectionLists.get(account.number) ?? []).map((c) => ({
      id: c.id, name: c.name, products: c.productIds.flatMap((id) => catalog.filter((p) => p.id === id)),
    }));
  }

  /** The business phone groups products of its catalog into a new collection. */
  addCollection(account: Account, name: string, productIds: string[]): CollectionView {
    if (!account.business) throw new SimError(409, 'not_a_business', `${account.number} is not a business account`, { number: account.number });
    const list = this.collectionLists.get(account.number) ?? [];
    if (list.length >= MAX_COLLECTIONS) throw new SimError(409, 'collections_full', `an account has at most ${MAX_COLLECTIONS} collections`);
    if (typeof name !== 'string' || name.length === 0 || name.length > 150) throw new SimError(400, 'invalid_collection', 'name must be 1–150 characters', { field: 'name' });
    if (!Array.isArray(productIds) || productIds.length === 0 || productIds.length > MAX_COLLECTION_ITEMS || new Set(productIds).size !== productIds.length) {
      throw new SimError(400, 'invalid_collection', `productIds must list 1 to ${MAX_COLLECTION_ITEMS} distinct product ids`, { field: 'productIds' });
    }
    for (const id of productIds) this.product(account, id);
    const collection: Collection = { id: catalogId(), name, productIds: [...productIds] };
    this.collectionLists.set(account.number, [...list, collection]);
    return this.collections(account).at(-1)!;
  }

  feature(): Feature {
    return {
      iq: {
        'w:biz': (connection, iq) => {
          const { account } = requireSession(this.network, connection);
          const node = getBinaryNodeChild(iq, 'business_profile');
          if (!node) throw new IqError(400, 'bad-request');
          if (iq.attrs.type === 'set') return this.profileSet(account, node);
          const profiles = getBinaryNodeChildren(node, 'profile').flatMap((p) => {
            const owner = this.network.accountOf(p.attrs.jid ?? '');
            const profile = owner && this.profileOf(owner);
            return profile ? [profileNode(`${owner.number}@${SERVER}`, profile)] : [];
          });
          return [{ tag: 'business_profile', attrs: { v: node.attrs.v ?? '244' }, content: profiles }];
        },
        'w:biz:catalog': (connection, iq) => this.catalogIq(requireSession(this.network, connection).account, iq),
      },
    };
  }

  private profileSet(account: Account, node: BinaryNode): BinaryNode[] {
    if (!account.business) throw new IqError(403, 'forbidden');
    const change: BusinessProfile = {};
    for (const key of ['description', 'address', 'email'] as const) {
      const value = string(getBinaryNodeChild(node, key));
      if (value !== undefined) change[key] = value;
    }
    const websites = getBinaryNodeChildren(node, 'website').map((w) => string(w) ?? '');
    if (websites.length) change.websites = websites;
    try {
      this.setProfile(account, change);
    } catch {
      throw new IqError(406, 'not-acceptable');
    }
    return [];
  }

  /**
   * `<collections biz_jid>` with `collection_limit` and `item_limit` (Baileys getCollections), answered as
   * Utils/business.js parseCollectionsNode reads it: `<collection>` with `<id>`, `<name>`, its products and a
   * `<status_info>`; hidden products only to the owner. Not a business: 404 item-not-found, as a catalog.
   */
  private collectionsNode(account: Account, child: BinaryNode): BinaryNode {
    const owner = this.network.accountOf(child.attrs.biz_jid ?? '');
    if (!owner?.business) throw new IqError(404, 'item-not-found');
    const limit = (tag: string) => Math.min(Number(string(getBinaryNodeChild(child, tag)) ?? 10) || 10, MAX_PAGE);
    const collections = this.collections(owner).slice(0, limit('collection_limit'));
    return { tag: 'collections', attrs: {}, content: collections.map((c) => ({
      tag: 'collection', attrs: {}, content: [
        ...leaf('id', c.id), ...leaf('name', c.name),
        ...c.products.filter((p) => owner === account || !p.isHidden).slice(0, limit('item_limit')).map(productNode),
        { tag: 'status_info', attrs: {}, content: leaf('status', 'APPROVED') },
      ],
    })) };
  }

  private catalogIq(account: Account, iq: BinaryNode): BinaryNode[] {
    const [child] = Array.isArray(iq.content) ? iq.content : [];
    const list = this.catalogs.get(account.number) ?? [];
    switch (child?.tag) {
      case 'product_catalog': {
        const owner = this.network.accountOf(child.attrs.jid ?? '');
        if (!owner?.business) throw new IqError(404, 'item-not-found');
        const limit = Math.min(Number(string(getBinaryNodeChild(child, 'limit')) ?? 10) || 10, MAX_PAGE);
        const visible = this.catalog(owner).filter((p) => owner === account || !p.isHidden);
        const after = string(getBinaryNodeChild(child, 'after'));
        const start = after === undefined ? 0 : visible.findIndex((p) => p.id === after) + 1;
        const page = visible.slice(start, start + limit);
        const more = start + limit < visible.length;
        return [{ tag: 'product_catalog', attrs: {}, content: [
          ...page.map(productNode), ...(more ? [{ tag: 'paging', attrs: {}, content: leaf('after', page.at(-1)!.id) }] : []),
        ] }];
      }
      case 'collections':
        return [this.collectionsNode(account, child)];
      case 'product_catalog_add': {
        if (!account.business) throw new IqError(403, 'forbidden');
        const product = this.addProduct(account, asControlProduct(parseProduct(getBinaryNodeChild(child, 'product'))));
        return [{ tag: 'product_catalog_add', attrs: {}, content: [productNode(product)] }];
      }
      case 'product_catalog_edit': {
        const edit = parseProduct(getBinaryNodeChild(child, 'product'));
        const index = list.findIndex((p) => p.id === edit.id);
        if (index < 0) throw new IqError(404, 'item-not-found');
        const updated: Product = { ...list[index]!, ...Object.fromEntries(Object.entries(edit).filter(([, v]) => v !== undefined)), images: edit.images?.length ? edit.images : list[index]!.images };
        try {
          checkProduct(updated);
        } catch {
          throw new IqError(406, 'not-acceptable');
        }
        list[index] = updated;
        return [{ tag: 'product_catalog_edit', attrs: {}, content: [productNode(updated)] }];
      }
      case 'product_catalog_delete': {
        const ids = new Set(getBinaryNodeChildren(child, 'product').map((p) => string(getBinaryNodeChild(p, 'id'))));
        const kept = list.filter((p) => !ids.has(p.id));
        this.catalogs.set(account.number, kept);
        return [{ tag: 'product_catalog_delete', attrs: { deleted_count: String(list.length - kept.length) } }];
      }
      default:
        throw new IqError(501, 'feature-not-implemented');
    }
  }
}

function checkProduct(p: Partial<Product>): void {
  const bad = [
    !(typeof p.name === 'string' && p.name.length > 0 && p.name.length <= 150) && 'name',
    !(typeof p.price === 'number' && Number.isFinite(p.price) && p.price >= 0) && 'price',
    !(typeof p.currency === 'string' && /^[A-Z]{3}$/.test(p.currency)) && 'currency',
    !(typeof (p.description ?? '') === 'string' && (p.description ?? '').length <= MAX_FIELD) && 'description',
  ].filter((name): name is string => !!name);
  if (bad.length) {
    throw new SimError(400, 'invalid_product', `a product needs name (1–150 characters), price (a number ≥ 0), currency (3 capital letters) and a description of at most ${MAX_FIELD} characters`, { field: bad });
  }
}

/** A `<product>` as a client sends it (Utils/business.js toProductNode); absent fields stay undefined. */
function parseProduct(node: BinaryNode | undefined): Partial<Product> {
  if (!node) throw new IqError(400, 'bad-request');
  const get = (tag: string) => string(getBinaryNodeChild(node, tag));
  const price = get('price');
  return {
    id: get('id'), name: get('name'), description: get('description'), retailerId: get('retailer_id'), url: get('url'), currency: get('currency'),
    price: price === undefined ? undefined : Number(price),
    isHidden: node.attrs.is_hidden === undefined ? undefined : node.attrs.is_hidden === 'true',
    images: getBinaryNodeChildren(getBinaryNodeChild(node, 'media'), 'image').map((i) => string(getBinaryNodeChild(i, 'url')) ?? ''),
    originCountryCode: string(getBinaryNodeChild(getBinaryNodeChild(node, 'compliance_info'), 'country_code_origin')),
  };
}

function asControlProduct(p: Partial<Product>): Omit<Product, 'id'> {
  try {
    checkProduct(p);
  } catch {
    throw new IqError(406, 'not-acceptable');
  }
  return { name: p.name!, description: p.description ?? '', price: p.price!, currency: p.currency!, isHidden: p.isHidden ?? false, images: p.images ?? [],
    ...(p.retailerId ? { retailerId: p.retailerId } : {}), ...(p.url ? { url: p.url } : {}), ...(p.originCountryCode ? { originCountryCode: p.originCountryCode } : {}) };
}

/** A `<product>` as Utils/business.js parseProductNode reads it. */
function productNode(p: Product): BinaryNode {
  const image = p.images[0];
  return {
    tag: 'product', attrs: { is_hidden: String(p.isHidden) },
    content: [
      ...leaf('id', p.id), ...leaf('name', p.name), ...leaf('description', p.description), ...leaf('retailer_id', p.retailerId), ...leaf('url', p.url),
      ...leaf('price', String(p.price)), ...leaf('currency', p.currency),
      ...(image ? [{ tag: 'media', attrs: {}, content: [{ tag: 'image', attrs: {}, content: [...leaf('request_image_url', image), ...leaf('original_image_url', image)] }] }] : []),
      { tag: 'status_info', attrs: {}, content: leaf('status', 'APPROVED') },
    ],
  };
}

/** A `<profile jid>` as Baileys getBusinessProfile reads it. */
function profileNode(jid: string, profile: BusinessProfile): BinaryNode {
  return {
    tag: 'profile', attrs: { jid },
    content: [
      ...leaf('description', profile.description), ...leaf('address', profile.address), ...leaf('email', profile.email),
      ...(profile.websites ?? []).flatMap((w) => leaf('website', w)),
      ...(profile.category ? [{ tag: 'categories', attrs: {}, content: [{ tag: 'category', attrs: { id: '1' }, content: Buffer.from(profile.category) }] }] : []),
    ],
  };
}
