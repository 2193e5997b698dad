import type { BusinessProfile, ProfileCapability } from '@parley/core';
import { ownJid, type AdapterRuntime } from '../runtime.js';
import { upstream } from '../util/errors.js';

/** The account's own profile (spec 4.1 profile name, about text, picture, business profile). */
export function profileCapability(runtime: AdapterRuntime): ProfileCapability {
  const socket = () => runtime.connection.openSocket();
  return {
    async setName(name) {
      const s = socket();
      await upstream('the profile name change', () => s.updateProfileName(name));
    },
    async setStatus(text) {
      const s = socket();
      await upstream('the about text change', () => s.updateProfileStatus(text));
    },
    async setPicture(image) {
      const s = socket();
      const me = ownJid(s);
      await upstream('the profile picture change', () => s.updateProfilePicture(me, image.data));
      const url = await s.profilePictureUrl(me, 'image').catch(() => undefined);
      return { imageProfile: url ?? '' };
    },
    async removePicture() {
      const s = socket();
      const me = ownJid(s);
      await upstream('the profile picture removal', () => s.removeProfilePicture(me));
    },
    async businessProfile(): Promise<BusinessProfile | null> {
      const s = socket();
      const me = ownJid(s);
      const profile = await upstream('the business profile query', () => s.getBusinessProfile(me));
      if (!profile) return null;
      return {
        ...(profile.wid ? { wid: profile.wid } : {}),
        ...(profile.description ? { description: profile.description } : {}),
        website: profile.website ?? [],
        ...(profile.category ? { category: profile.category } : {}),
      };
    },
  };
}
