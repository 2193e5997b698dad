/** The three channels of the spec (section 1.6). `whatsapp` is the main channel and the default `provider`. */
export type ChannelName = 'whatsapp' | 'instagram' | 'messenger';

/** Every channel name, main channel first. */
export const CHANNEL_NAMES: readonly ChannelName[] = ['whatsapp', 'instagram', 'messenger'];

/** The social channels that link beside an instance's main channel. */
export type SocialChannelName = Exclude<ChannelName, 'whatsapp'>;
