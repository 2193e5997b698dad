import type { Logger } from '@parley/core';
import { schedule, type ScheduledTask } from 'node-cron';
import type { HousekeepingOptions } from './webhook-options.js';

/** The periodic jobs of the engine. */
export interface HousekeepingJobs {
  /** Wakes the delivery worker. */
  sweep(): void;
  /** Deletes expired dead letters. */
  purge(): Promise<unknown>;
}

/**
 * Schedules the housekeeping jobs with node-cron: the retry sweep and the dead-letter expiry. There is
 * no statistics roll-up: the queue keeps the counters exact on every ack and fail. Answers a stopper.
 */
export function scheduleHousekeeping(options: HousekeepingOptions, jobs: HousekeepingJobs, logger: Logger): () => Promise<void> {
  const cronLogger = {
    info: (message: string) => logger.debug({ component: 'node-cron' }, message),
    warn: (message: string) => logger.debug({ component: 'node-cron' }, message),
    error: (message: string | Error, err?: Error) => logger.error({ component: 'node-cron', err: err ?? message }, String(message)),
    debug: (message: string | Error) => logger.trace({ component: 'node-cron' }, String(message)),
  };
  const tasks: ScheduledTask[] = [
    schedule(options.sweepCron, () => jobs.sweep(), { name: 'webhooks-retry-sweep', noOverlap: true, logger: cronLogger }),
    schedule(options.purgeCron, async () => {
      await jobs.purge().catch((error: unknown) => logger.error({ err: error }, 'dead-letter expiry failed'));
    }, { name: 'webhooks-dead-letter-expiry', noOverlap: true, logger: cronLogger }),
  ];
  return async () => {
    await Promise.all(tasks.map((task) => task.destroy()));
  };
}
