import { defineMetaChannelPlugin } from '@parley/meta-graph';
import { instagramProfile } from './instagram.profile.js';

/** Registers the `instagram` channel driver (Instagram Messaging through Meta's Graph API). */
export default defineMetaChannelPlugin('@parley/channel-instagram', instagramProfile);
