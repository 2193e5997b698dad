import type { ChannelAddressing, ChannelName } from '../domain/channel-name.js';
import type { InstanceRecord } from '../domain/instance.js';
import type { ChannelDriver } from './adapter.js';

/**
 * What the webhook side knows of the registered channels, derived from the drivers: there is no
 * list of channels anywhere else. The server builds it from its drivers with {@link channelDirectory}
 * and hands it to the webhook engine, which gives formats the instance's main channel and applies
 * `allowNumber` to phone-number channels only.
 */
export interface ChannelDirectory {
  /** Every wire channel some driver drives: main channels first, then social ones, in registration order. */
  readonly channels: readonly ChannelName[];
  /** The channels main drivers drive (an instance's default `provider` is one of them). */
  readonly mainChannels: readonly ChannelName[];
  /** The wire channel of an instance's main driver, or undefined when that driver is not configured. */
  mainChannel(instance: Pick<InstanceRecord, 'driver'>): ChannelName | undefined;
  /** The addressing a channel's drivers declare, or undefined for a channel no driver drives. */
  addressing(channel: ChannelName): ChannelAddressing | undefined;
}

/** The members of a driver a directory reads. */
export type DriverDescriptor = Pick<ChannelDriver, 'name' | 'channel' | 'role' | 'addressing'>;

/** Builds the {@link ChannelDirectory} of a set of drivers (the host already refused drivers of one channel disagreeing on addressing). */
export function channelDirectory(drivers: Iterable<DriverDescriptor>): ChannelDirectory {
  const byName = new Map<string, DriverDescriptor>();
  const addressing = new Map<ChannelName, ChannelAddressing>();
  const main: ChannelName[] = [];
  const social: ChannelName[] = [];
  for (const driver of drivers) {
    byName.set(driver.name, driver);
    if (!addressing.has(driver.channel)) addressing.set(driver.channel, driver.addressing);
    const list = driver.role === 'main' ? main : social;
    if (!main.includes(driver.channel) && !social.includes(driver.channel)) list.push(driver.channel);
  }
  return {
    channels: [...main, ...social],
    mainChannels: [...main],
    mainChannel: (instance) => byName.get(instance.driver)?.channel,
    addressing: (channel) => addressing.get(channel),
  };
}
