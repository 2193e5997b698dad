import type { MediaInput, ProfileCapability } from '@parley/core';
import type { SandboxDevice } from '../sandbox-device.js';

/** Id under which the profile picture bytes are kept in the media repository. */
export const PICTURE_MEDIA_ID = 'sandbox:profile-picture';

/** Profile of a sandbox phone: name, about text and picture, persisted in its session. */
export class SandboxProfile implements ProfileCapability {
  constructor(
    private readonly device: SandboxDevice,
    private readonly pictureUrl: (instanceId: string, sha: string) => string,
  ) {}

  async setName(name: string): Promise<void> {
    await this.device.saveSession({ name });
  }

  async setStatus(text: string): Promise<void> {
    await this.device.saveSession({ about: text, aboutSetAt: Math.floor(this.device.network.now() / 1000) });
  }

  async setPicture(image: MediaInput): Promise<{ imageProfile: string }> {
    const { storage, instanceId } = this.device.ctx;
    await storage.media.put(instanceId, PICTURE_MEDIA_ID, { data: image.data, mimetype: image.mimetype });
    await this.device.saveSession({ pictureSha: image.sha256 });
    return { imageProfile: this.pictureUrl(instanceId, image.sha256) };
  }

  async removePicture(): Promise<void> {
    await this.device.saveSession({ pictureSha: undefined });
  }
}
