import { ConflictError, NotFoundError, type ChannelAdapter, type ChannelName, type InstanceRecord, type SocialChannelName } from '@parley/core';

/** A loaded instance: its current record and its channel adapters. */
export class InstanceRuntime {
  readonly social = new Map<SocialChannelName, ChannelAdapter>();

  constructor(
    public record: InstanceRecord,
    readonly main: ChannelAdapter,
  ) {}

  get id(): string {
    return this.record.id;
  }

  /**
   * The adapter for a `provider` (spec 1.6): the main channel by default or when `provider` names
   * it; a linked social channel otherwise (409 `channel_not_linked` when it is not linked).
   */
  adapter(provider?: ChannelName): ChannelAdapter {
    if (!provider || provider === this.main.channel) return this.main;
    const adapter = this.social.get(provider as SocialChannelName);
    if (!adapter) throw new ConflictError(`${provider} is not linked to this instance`, 'channel_not_linked');
    return adapter;
  }

  /** Live connection state of the main channel (the adapter's view, falling back to the record). */
  isConnected(): boolean {
    return this.main.capabilities.connection?.state().phoneConnected ?? this.record.phoneConnected;
  }

  /**
   * Connected account. Whether and as whom the instance is connected is the adapter's live view; the
   * profile (name, picture) is the record's, which every profile route updates — adapters keep the
   * user they saw when the connection opened.
   */
  user(): InstanceRecord['user'] {
    const live = this.main.capabilities.connection?.state();
    if (!live) return this.record.user;
    if (!live.user) return null;
    return this.record.user?.id === live.user.id ? this.record.user : live.user;
  }

  /** Every adapter, main first. */
  adapters(): ChannelAdapter[] {
    return [this.main, ...this.social.values()];
  }
}

/** Thrown for an unknown instance key or id. */
export function instanceNotFound(): NotFoundError {
  return new NotFoundError('instance', 'instance_not_found');
}
