import type { Collection, Order, Product, ProductInput, ProductPage } from '../domain/resources.js';

/** Business catalog (spec 4.12). */
export interface CatalogCapability {
  /** One page of products; pass the previous page's `cursor` to continue. */
  products(options: { limit: number; cursor?: string }): Promise<ProductPage>;
  collections(options: { limit: number }): Promise<Collection[]>;
  createProduct(product: ProductInput): Promise<Product>;
  /** Throws NotFoundError for an unknown product. */
  updateProduct(productId: string, change: Partial<ProductInput>): Promise<Product>;
  deleteProduct(productId: string): Promise<void>;
  order(orderId: string, token: string): Promise<Order>;
}
