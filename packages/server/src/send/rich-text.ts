import {
  addressKind, CapabilityNotSupportedError, normalizeAddress, requireCapability, ValidationError, type ChannelAddressing, type LinkPreview, type Mentions,
} from '@parley/core';
import type { Env } from './content-env.js';
import { buildLinkPreview, firstLink } from './link-preview.js';
import type { Mentioning } from './send-bodies.js';

const EVERYONE = 'everyone';

/** A text's checks before any I/O: its mentions, and a link to preview when `linkPreview` asks for one. */
export function checkRichText(body: Mentioning & { to: string; text: string; linkPreview?: boolean }, addressing: ChannelAddressing): void {
  checkMentions(body, addressing);
  if (body.linkPreview && !firstLink(body.text)) {
    throw new ValidationError('body.linkPreview needs an http or https link in body.text', { fields: [{ field: 'body.linkPreview', message: 'needs an http or https link in body.text' }] });
  }
}

/** 400 naming the entry: `everyone` outside a group, a group or malformed address, a bad number (as the main channel's `addressing` reads them). */
export function checkMentions(body: Mentioning & { to: string }, addressing: ChannelAddressing): void {
  body.mentions?.forEach((value, i) => {
    const field = `body.mentions[${i}]`;
    if (value === EVERYONE) {
      if (!namesGroup(addressing, body.to)) throw new ValidationError(`${field}: everyone can only be mentioned in a group (body.to must be a group JID)`);
      return;
    }
    if (addressKind(addressing, normalizeAddress(addressing, value, field)) === 'group') throw new ValidationError(`${field} must be a person (a number or a user JID), not a group`);
  });
}

/** Whether `to` names a group; a `to` the channel cannot address names none (its own 400 comes later). */
function namesGroup(addressing: ChannelAddressing, to: string): boolean {
  try {
    return addressKind(addressing, normalizeAddress(addressing, to, 'body.to')) === 'group';
  } catch {
    return false;
  }
}

/**
 * The {@link Mentions} of a send: JIDs of the people named, and for `everyone` the group's members
 * (read from the channel) with `mentionAll`. 422 when the channel carries no mentions.
 */
export async function resolveMentions(env: Env, body: Mentioning & { to: string }): Promise<Mentions> {
  if (!body.mentions?.length) return {};
  if (!env.channel.messaging.extras?.mentions) throw new CapabilityNotSupportedError(env.channel.adapter.channel, 'mentions (body.mentions)');
  const jids = new Set<string>();
  let all = false;
  for (const [i, value] of body.mentions.entries()) {
    if (value === EVERYONE) all = true;
    else jids.add(normalizeAddress(env.addressing, value, `body.mentions[${i}]`));
  }
  if (all) {
    const group = await requireCapability(env.channel.adapter, 'groups').get(normalizeAddress(env.addressing, body.to, 'body.to'));
    for (const member of group.participants) jids.add(member.id);
  }
  return { mentions: [...jids], ...(all ? { mentionAll: true } : {}) };
}

/** The preview of a text's link when asked for and the channel shows previews (see {@link buildLinkPreview}). */
export async function previewFor(env: Env, body: { text: string; linkPreview?: boolean }): Promise<{ preview?: LinkPreview }> {
  if (!body.linkPreview || !env.channel.messaging.extras?.linkPreview) return {};
  const preview = await buildLinkPreview(env.media, firstLink(body.text)!, env.route);
  return preview ? { preview } : {};
}
