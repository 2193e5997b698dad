import {
  defaultInstanceFlags, defaultWebhookSettings, newSecret, ValidationError, type InstanceRecord, type WebhookSettings,
} from '@parley/core';
import { newWebhookSecret } from '@parley/webhooks';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { instanceNotFound } from '../instances/instance-runtime.js';
import { userView } from '../instances/profile-picture.js';
import { nameClaims, takenError, uniqueClaims, uniqueLookup } from './unique-options.js';

/** Input of `POST /admin/instances`. */
export interface CreateInstanceInput {
  channel?: string;
  name?: string;
  webhook?: Partial<WebhookSettings>;
  options?: Record<string, unknown>;
}

/** Admin view of an instance: includes its key and webhook secret (admin answers only); `publicUrl` as in the instance view. */
export function adminView(record: InstanceRecord, publicUrl: string): Record<string, unknown> {
  return {
    id: record.id,
    key: record.key,
    name: record.name,
    channel: record.driver,
    createdAt: record.createdAt,
    phoneConnected: record.phoneConnected,
    user: userView(record.user, publicUrl, record.key),
    health: record.health,
    webhookSecret: record.webhookSecret,
    webhook: record.webhook,
    options: record.driverOptions,
    linkedChannels: Object.keys(record.links),
  };
}

/** Issues, lists and deletes instances (operator API; the spec leaves key issuance to the operator). */
export class InstanceAdmin {
  constructor(private readonly ctx: ServerContext) {}

  async create(input: CreateInstanceInput): Promise<InstanceRecord> {
    const channel = input.channel ?? this.ctx.config.defaultChannel;
    const driver = this.ctx.registry.driver(channel, 'body.channel');
    if (driver.role !== 'main') throw new ValidationError(`body.channel "${channel}" is a social channel; link it to an instance instead`);
    const webhook = { ...defaultWebhookSettings(), ...(input.webhook ?? {}) };
    if (input.webhook) await this.ctx.webhooks.validateSettings(input.webhook, 'body.webhook');
    const driverOptions = driver.instanceOptions
      ? await driver.instanceOptions(input.options ?? {}, uniqueLookup(this.ctx.storage.instances, driver))
      : (() => {
        if (input.options && Object.keys(input.options).length) throw new ValidationError(`body.options is not accepted by the ${channel} channel`);
        return {};
      })();
    // The record and its unique values (its name, its driver's unique options) are written in one
    // atomic step: of two creations claiming one value, exactly one succeeds and the other leaves nothing behind.
    const name = input.name ?? '';
    const runtime = await this.ctx.registry.create({
      key: newSecret(24),
      name,
      driver: channel,
      flags: defaultInstanceFlags(),
      webhook,
      webhookSecret: newWebhookSecret(),
      user: null,
      phoneConnected: false,
      wantsConnection: false,
      health: 'healthy',
      driverOptions,
      links: {},
    }, [...nameClaims(name), ...uniqueClaims(driver, driverOptions)]).catch((err: unknown) => {
      throw takenError(driver, err, name);
    });
    this.ctx.logger.info({ instance: runtime.id, channel }, 'instance created');
    return runtime.record;
  }

  /** Finds an instance by key or by public id. */
  async find(keyOrId: string): Promise<InstanceRuntime> {
    if (keyOrId.startsWith('ins_')) {
      try {
        return await this.ctx.registry.byIdOrThrow(keyOrId);
      } catch {
        // fall through: a key may start with the same letters
      }
    }
    return this.ctx.registry.byKey(keyOrId).catch(() => {
      throw instanceNotFound();
    });
  }

  /** Logs out, stops and deletes an instance with all its data. */
  async delete(keyOrId: string): Promise<void> {
    const runtime = await this.find(keyOrId);
    const id = runtime.id;
    await runtime.main.capabilities.connection?.logout().catch((err: unknown) =>
      this.ctx.logger.warn({ err, instance: id }, 'logout during deletion failed; deleting anyway'));
    await this.ctx.registry.unload(id);
    await this.ctx.bus.drain();
    const s = this.ctx.storage;
    // An attached external database belongs to the operator: it is detached, never wiped.
    await s.detach(id);
    await Promise.all([
      s.messages.clear(id), s.chats.clear(id), s.contacts.clear(id), s.media.clear(id), s.authState.clear(id), s.outbound.clear(id),
      s.state.clearPrefix(`${id}:`), this.ctx.webhooks.forget(runtime.record), s.events.clear(id),
    ]);
    // Its streams end: their key no longer opens anything.
    this.ctx.streams.endInstance(id);
    await this.ctx.registry.forgetLinks(runtime.record);
    this.ctx.outbound.policies.forget(id);
    this.ctx.outbound.pacer.forget(id);
    this.ctx.outbound.worker.forgetInstance(id);
    await s.instances.delete(id);
    await this.ctx.cluster?.store.forget(id);
    this.ctx.logger.info({ instance: id }, 'instance deleted');
  }
}
