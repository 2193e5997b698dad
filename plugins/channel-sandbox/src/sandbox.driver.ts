import { randomInt } from 'node:crypto';
import { ConflictError, NotFoundError, unfencedStorage, ValidationError, type ChannelContext, type ChannelDriver, type DriverRoute, type Clock, type HostSettings, type Logger, type Storage, type UniqueOptionLookup } from '@parley/core';
import { isGroupJid, pendingMessage, WHATSAPP_ADDRESSING } from '@parley/whatsapp-proto';
import { PICTURE_MEDIA_ID } from './capabilities/profile.js';
import { SandboxAdapter } from './sandbox.adapter.js';
import { SandboxDevice } from './sandbox-device.js';
import { groupPicture } from './sandbox-group-state.js';
import { inboxOf, SandboxNetwork } from './sandbox-network.js';
import { placeOrder, type OrderRequest } from './sandbox-orders.js';
import { MOBILE_CODE_ANSWER, ORDER_ANSWER, ORDER_BODY, SCAN_ANSWER, SCAN_BODY } from './sandbox-route-schemas.js';
import type { SandboxOptions } from './sandbox.options.js';

/** Dependencies of the sandbox driver. */
export interface SandboxDriverDeps {
  options: SandboxOptions;
  host: HostSettings;
  logger: Logger;
  /** The server's clock (the real one when absent). */
  clock?: Clock;
}

function numberOf(record: { driverOptions: Record<string, unknown> }): string {
  return String(record.driverOptions.number);
}

/**
 * The sandbox driver: a simulated main-channel network inside the server process, so the whole API
 * can be used, demonstrated, tested and benchmarked offline. It drives the `whatsapp` wire channel
 * under the channel name `sandbox`.
 */
export class SandboxDriver implements ChannelDriver {
  readonly name = 'sandbox';
  readonly channel = 'whatsapp' as const;
  readonly role = 'main' as const;
  readonly addressing = WHATSAPP_ADDRESSING;
  readonly pendingRecord = pendingMessage;
  /** A simulated network has no reconnect storm to fear: a restart brings thousands of phones back at once. */
  readonly restorePerSecond = 10_000;
  readonly routes: DriverRoute[];
  private network?: SandboxNetwork;
  /** Storage of the network's shared state (group pictures), known once the first instance is created. */
  private storage?: Storage;

  constructor(private readonly deps: SandboxDriverDeps) {
    this.routes = [
      {
        method: 'post', path: '/:key/scan',
        summary: 'Simulate the phone scanning the QR code (or entering the pairing code, with body {"code"}). Authenticated by the instance key in the path.',
        body: SCAN_BODY,
        response: SCAN_ANSWER,
        // 404 unknown key; 409 not a sandbox instance, already connected or nothing to scan (a wrong code is a 400).
        errors: [404, 409],
        handler: async (req) => {
          const adapter = await this.adapterByKey(req);
          const user = await adapter.connection.scan((req.body as { code?: string }).code);
          return { status: 200, body: { status: 200, data: { phoneConnected: true, user } } };
        },
      },
      {
        method: 'get', path: '/:key/mobile-code',
        summary: 'The mobile registration code the simulated phone received by SMS or voice call after POST /{key}/instance/mobile/request-code '
          + '(404 while none is waiting: none requested, expired, used or void). Authenticated by the instance key in the path.',
        response: MOBILE_CODE_ANSWER,
        // 404 unknown key or no code waiting; 409 not a sandbox instance.
        errors: [404, 409],
        handler: async (req) => {
          const adapter = await this.adapterByKey(req);
          return { status: 200, body: { status: 200, data: await adapter.mobile.waitingCode() } };
        },
      },
      {
        method: 'get', path: '/pictures/:id',
        summary: 'Profile picture of a sandbox instance, or of a sandbox group or community by its JID (public, like pictures on the real network).',
        response: { binary: ['image/jpeg', 'image/png', 'image/webp'] },
        errors: [404],
        handler: async (req) => {
          if (isGroupJid(req.params.id!)) {
            const picture = this.storage ? await groupPicture(this.storage, req.params.id!) : null;
            if (!picture) throw new NotFoundError('group picture');
            return { status: 200, body: picture.data, contentType: picture.mimetype };
          }
          const adapter = (await req.adapter(req.params.id!)) as SandboxAdapter;
          const session = await adapter.device.session();
          const blob = session.pictureSha ? await adapter.device.ctx.storage.media.get(adapter.device.ctx.instanceId, PICTURE_MEDIA_ID) : null;
          if (!blob) throw new NotFoundError('profile picture');
          return { status: 200, body: blob.data, contentType: blob.mimetype };
        },
      },
      {
        method: 'post', path: '/:key/order',
        summary: 'Simulate this instance buying from another sandbox instance\'s catalog: body {"to": "<seller number>", "items": [{"productId", "quantity"}]}. '
          + 'The order is recorded in the seller\'s catalog and reaches the seller as an orderMessage with its orderId and token. Authenticated by the buyer\'s instance key in the path.',
        body: ORDER_BODY,
        response: ORDER_ANSWER,
        // 404 unknown key, seller or product; 409 not a sandbox instance or not connected.
        errors: [404, 409],
        handler: async (req) => {
          const adapter = await this.adapterByKey(req);
          return { status: 200, body: { status: 200, data: await placeOrder(adapter.device, req.body as OrderRequest) } };
        },
      },
    ];
  }

  private async adapterByKey(req: Parameters<DriverRoute['handler']>[0]): Promise<SandboxAdapter> {
    const record = await req.instanceByKey(req.params.key!);
    if (record.driver !== this.name) throw new ConflictError('this instance is not a sandbox instance', 'not_sandbox');
    return (await req.adapter(record.id)) as SandboxAdapter;
  }

  private networkFor(storage: Storage): SandboxNetwork {
    this.network ??= new SandboxNetwork(storage, this.deps.options, this.deps.logger, this.deps.clock);
    this.storage ??= storage;
    return this.network;
  }

  /**
   * At shutdown (every instance stopped, storage still open): waits for the link records still being
   * written ({@link SandboxLinks.settle}), no longer than `shutdown` allows.
   */
  async close(shutdown: AbortSignal): Promise<void> {
    await this.network?.links.settle(shutdown);
  }

  async create(context: ChannelContext): Promise<SandboxAdapter> {
    const record = await context.instance();
    // The network is every instance's: it writes through the unfenced storage, never one instance's fenced view.
    const device = new SandboxDevice(context, this.networkFor(unfencedStorage(context.storage)), this.deps.options, numberOf(record));
    return new SandboxAdapter(device, (id, sha) => `${this.deps.host.publicUrl}/sandbox/pictures/${id}?v=${sha.slice(0, 12)}`);
  }

  /** Packets waiting in the phone's inbox (messages, receipts, calls… sent while it was offline). */
  async pendingWork(instanceId: string, storage: Storage): Promise<number> {
    return (await storage.state.list(inboxOf(instanceId))).length;
  }

  /** The number is unique among sandbox instances: the server claims it with the record (409 `number_taken`). */
  readonly uniqueOptions = ['number'] as const;

  /** Validates `options.number` (digits with country code) or assigns one no sandbox instance holds. */
  async instanceOptions(input: Record<string, unknown>, unique: UniqueOptionLookup): Promise<Record<string, unknown>> {
    const unknownKeys = Object.keys(input).filter((k) => k !== 'number');
    if (unknownKeys.length) throw new ValidationError(`body.options.${unknownKeys[0]} is not allowed (the sandbox accepts only number)`);
    if (input.number !== undefined) {
      if (typeof input.number !== 'string' || !/^\d{8,15}$/.test(input.number)) {
        throw new ValidationError('body.options.number must be a phone number with country code (8 to 15 digits)');
      }
      return { number: input.number };
    }
    for (;;) {
      const number = `5500${String(randomInt(100_000_000, 999_999_999))}`;
      if (!(await unique.taken('number', number))) return { number };
    }
  }
}
