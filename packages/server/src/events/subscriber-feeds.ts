import type { Clock, EventLog, Logger, PluginEventSubscriber, StateRepository } from '@parley/core';
import type { EventBus } from './event-bus.js';
import { SubscriberFeed } from './subscriber-feed.js';

/** The {@link SubscriberFeed}s of every in-process event subscriber the plugins added. */
export class SubscriberFeeds {
  private feeds: SubscriberFeed[] = [];

  constructor(private readonly deps: {
    log: EventLog; state: StateRepository; bus: Pick<EventBus, 'watch' | 'horizon'>; clock: Clock; logger: Logger; liveOnly: boolean;
  }) {}

  /** Starts a feed for each subscriber (the storage is initialised): each catches up from its cursor, then follows the bus. */
  async start(subscribers: Iterable<PluginEventSubscriber>): Promise<void> {
    for (const subscriber of subscribers) {
      const feed = new SubscriberFeed({ subscriber, ...this.deps, logger: this.deps.logger.child({ subscriber: subscriber.name }) });
      await feed.start();
      this.feeds.push(feed);
    }
  }

  /** Stops every feed, saving its cursor. */
  async stop(): Promise<void> {
    await Promise.all(this.feeds.map((feed) => feed.stop()));
    this.feeds = [];
  }
}
