import { ConflictError, type CapabilityGaps, type ChannelAdapter, type ChannelCapabilities, type ChannelContext } from '@parley/core';
import type { BotApi } from './bot-api.js';
import type { DownloadLimits } from './file-download.js';
import { eventsOf } from './inbound.js';
import { TelegramMessaging } from './messaging.js';
import type { TgUpdate } from './telegram-types.js';

/** How many recent update ids an instance remembers to drop redeliveries. */
const REMEMBERED = 10_000;

const DIRECT = 'a Telegram bot link sends and receives messages only';

/** Why the families Telegram lacks here are absent (the 422 message says it). */
const GAPS: CapabilityGaps = {
  connection: 'Telegram is linked with a bot token (POST link), there is no session to connect',
  groups: DIRECT, communities: DIRECT, labels: DIRECT, catalog: DIRECT, calls: DIRECT, callReject: DIRECT, status: DIRECT,
};

/**
 * The adapter of one instance's Telegram bot: messaging only. Updates come in through the driver's
 * webhook route, which calls {@link TelegramAdapter.ingest}.
 */
export class TelegramAdapter implements ChannelAdapter {
  readonly channel = 'telegram';
  readonly capabilities: ChannelCapabilities;
  readonly capabilityGaps = GAPS;

  constructor(private readonly context: ChannelContext, api: BotApi, limits: DownloadLimits) {
    this.capabilities = { messaging: new TelegramMessaging(api, () => this.token(), context.emit, limits) };
  }

  /**
   * Emits the events of one update whose secret token the route checked. Telegram redelivers an update
   * until the webhook answers 2xx: a redelivered `update_id` is dropped (kept under the instance's
   * prefix, so deleting the instance clears it; the last 10,000 ids are kept).
   */
  async ingest(payload: unknown): Promise<number> {
    const update = payload as TgUpdate;
    const seen = `${this.context.instanceId}:telegram:updates`;
    if (await this.context.storage.state.get(seen, String(update.update_id))) return 0;
    const events = eventsOf(update);
    for (const event of events) this.context.emit(event);
    await this.context.storage.state.put(seen, String(update.update_id), { at: update.message?.date ?? update.edited_message?.date ?? 0 });
    // update_id grows by one per update: remembering the last REMEMBERED ids bounds the store.
    await this.context.storage.state.delete(seen, String(update.update_id - REMEMBERED));
    return events.length;
  }

  /** Nothing to close: the bot has no connection of its own, updates arrive on the server's HTTP port. */
  async stop(): Promise<void> {}

  private async token(): Promise<string> {
    const link = (await this.context.instance()).links.telegram;
    if (!link) throw new ConflictError('Telegram is not linked to this instance', 'not_linked');
    return link.accessToken;
  }
}
