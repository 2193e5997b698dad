import type { MediaInput } from '../domain/outgoing.js';
import type { StatusStory } from '../domain/resources.js';

/**
 * Status stories (spec 4.13), posted to `status@broadcast` and visible to `statusJidList`. An empty
 * `statusJidList` means the channel's default audience, which the channel decides (WhatsApp: the
 * contacts of the account's address book); the story answered lists who it went to.
 */
export interface StatusCapability {
  text(text: string, statusJidList: string[], options?: { backgroundColor?: string; font?: number }): Promise<StatusStory>;
  image(image: MediaInput, caption: string | undefined, statusJidList: string[]): Promise<StatusStory>;
  video(video: MediaInput, caption: string | undefined, statusJidList: string[]): Promise<StatusStory>;
  audio(audio: MediaInput, statusJidList: string[]): Promise<StatusStory>;
  /** Mentions `jid` in the story `statusMsgId`. */
  mention(jid: string, statusMsgId: string): Promise<StatusStory>;
}
