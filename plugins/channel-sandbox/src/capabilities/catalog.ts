import {
  type CatalogCapability, type Collection, type Order, type Product, type ProductInput, type ProductPage,
} from '@parley/core';
import { SandboxCatalogStore } from '../sandbox-catalog.js';
import type { SandboxDevice } from '../sandbox-device.js';

/**
 * The business catalog of a sandbox phone (see {@link SandboxCatalogStore}). Orders come from other
 * sandbox phones through the sandbox order route; every operation needs the phone connected.
 */
export class SandboxCatalog implements CatalogCapability {
  private readonly store: SandboxCatalogStore;

  constructor(private readonly device: SandboxDevice) {
    this.store = new SandboxCatalogStore(device.ctx.storage, device.network, device.ctx.instanceId);
  }

  async products(options: { limit: number; cursor?: string }): Promise<ProductPage> {
    this.device.requireConnected();
    return this.store.page(options.limit, options.cursor);
  }

  async collections(options: { limit: number }): Promise<Collection[]> {
    this.device.requireConnected();
    return this.store.collections(options.limit);
  }

  async createProduct(product: ProductInput): Promise<Product> {
    this.device.requireConnected();
    return this.store.create(product);
  }

  async updateProduct(productId: string, change: Partial<ProductInput>): Promise<Product> {
    this.device.requireConnected();
    return this.store.update(productId, change);
  }

  async deleteProduct(productId: string): Promise<void> {
    this.device.requireConnected();
    await this.store.delete(productId);
  }

  async order(orderId: string, token: string): Promise<Order> {
    this.device.requireConnected();
    return this.store.order(orderId, token);
  }
}
