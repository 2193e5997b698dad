import { defineMetaChannelPlugin } from '@parley/meta-graph';
import { messengerProfile } from './messenger.profile.js';

/** Registers the `messenger` channel driver (Messenger Platform through Meta's Graph API). */
export default defineMetaChannelPlugin('@parley/channel-messenger', messengerProfile);
