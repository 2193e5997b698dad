import {
  ConflictError,
  type CapabilityGaps, type ChannelAdapter, type ChannelCapabilities, type ChannelContext, type ChannelEventPayload, type InboundMessage,
  type SocialLink,
} from '@parley/core';
import type { MetaChannelProfile } from '../channel-profile.js';
import type { GraphClient, GraphCredentials } from '../graph/graph-client.js';
import { DedupWindow } from '../inbound/dedup-window.js';
import type { MetaMediaDownloader } from '../inbound/media-download.js';
import { mapEntry } from '../inbound/map-messaging.js';
import { ProfileCache, type SenderProfile } from '../inbound/profile-cache.js';
import { PendingReferrals } from '../inbound/referral.js';
import { SentIds } from '../outbound/sent-ids.js';
import { watermarkStatuses } from '../inbound/watermark.js';
import type { WebhookEntry } from '../inbound/webhook-payload.js';
import type { MetaGraphOptions } from '../options.js';
import { MetaMessaging } from '../outbound/meta-messaging.js';

/** Collaborators of an adapter besides its context. */
export interface MetaAdapterDeps {
  client: GraphClient;
  media: MetaMediaDownloader;
  options: MetaGraphOptions;
  /** Unix milliseconds. */
  now: () => number;
}

/** Why the families a Meta channel lacks are absent (shown in the 422 message). */
function gaps(label: string): CapabilityGaps {
  const only = `${label} messaging through the Graph API has direct messages only`;
  return {
    connection: `${label} is linked with an access token (POST link), there is no session to connect`,
    groups: only, communities: only, labels: only, catalog: only, calls: only, callReject: only, status: only,
  };
}

interface ProfileAnswer {
  name?: unknown;
  username?: unknown;
  profile_pic?: unknown;
}

/**
 * The adapter of one instance's Instagram or Messenger link: messaging only. Inbound events come in
 * through the driver's webhook route, which calls {@link MetaChannelAdapter.ingest}.
 */
export class MetaChannelAdapter implements ChannelAdapter {
  readonly channel: MetaChannelProfile['channel'];
  readonly capabilities: ChannelCapabilities;
  readonly capabilityGaps: CapabilityGaps;
  private readonly dedup: DedupWindow;
  private readonly profiles: ProfileCache;
  private readonly referrals: PendingReferrals;
  private readonly sent = new SentIds();

  constructor(
    private readonly profile: MetaChannelProfile,
    private readonly context: ChannelContext,
    private readonly deps: MetaAdapterDeps,
  ) {
    this.channel = profile.channel;
    const credentials = (): Promise<GraphCredentials> => this.credentials();
    this.capabilities = { messaging: new MetaMessaging(
      profile, deps.client, credentials, () => Math.floor(deps.now() / 1000), deps.media, this.sent,
    ) };
    this.capabilityGaps = gaps(profile.label);
    // Under the instance id prefix, so deleting the instance clears it with everything else.
    const base = `${context.instanceId}:meta:${profile.channel}`;
    this.dedup = new DedupWindow(context.storage.state, `${base}:dedup`, deps.options.dedupWindowHours * 3600_000, deps.now);
    this.referrals = new PendingReferrals(context.storage.state, `${base}:referrals`, deps.now);
    this.profiles = new ProfileCache(context.storage.state, `${base}:profiles`, (userId) => this.lookupProfile(userId), deps.now, context.logger);
  }

  /**
   * Emits the events of one verified webhook entry, dropping redeliveries. Does no Graph API call
   * before returning (profile lookups run afterwards). Resolves once the server has stored the events
   * and queued their webhooks (`ChannelContext.settled`), and only then records them in the dedup
   * window: a crash before Meta gets its 200 makes Meta deliver the entry again, and that redelivery is
   * not dropped. Answers how many events were emitted.
   */
  async ingest(entry: WebhookEntry): Promise<number> {
    let emitted = 0;
    const handled: string[] = [];
    try {
      for (const mapped of mapEntry(entry, this.channel, this.deps.now())) {
        if ('pendingReferral' in mapped) {
          await this.referrals.put(mapped.pendingReferral.userId, mapped.pendingReferral.referral);
          continue;
        }
        const { dedupKey, watermark } = mapped;
        const payload = await this.echoAsStatus(mapped.payload);
        if (dedupKey !== undefined && !(await this.dedup.begin(dedupKey))) continue;
        let referredBy: string | undefined;
        try {
          if (payload.type === 'message' && isWritten(payload.message)) {
            if (this.deps.options.profileLookup) withProfile(payload.message, await this.profiles.get(payload.message.from));
            referredBy = await this.withPendingReferral(payload.message);
          }
          this.context.emit(payload);
        } catch (err) {
          if (dedupKey !== undefined) this.dedup.abort(dedupKey);
          throw err;
        }
        if (referredBy !== undefined) await this.referrals.clear(referredBy);
        if (dedupKey !== undefined) handled.push(dedupKey);
        emitted++;
        if (watermark) {
          // The watermark receipt itself (spec 6.3 `status-read-messenger`, no id), then one status per stored message it covers.
          for (const covered of await watermarkStatuses(this.context.storage.messages, this.context.instanceId, this.channel, watermark)) {
            this.context.emit(covered);
            emitted++;
          }
        }
      }
    } finally {
      // Also after a failure: what was emitted is remembered, so Meta's retry of the entry does not repeat it.
      await this.context.settled?.();
      for (const key of handled) await this.dedup.commit(key);
    }
    return emitted;
  }

  /**
   * The echo of a message sent through the API is that send's `sent` status (as WhatsApp reports its
   * server ack), not a `message` event: own messages sent through Parley are reported by statuses on
   * every channel. Echoes of messages the account sent elsewhere (the Page inbox, the Instagram app)
   * stay from-me messages. A send is known by the ids Meta answered to this adapter, or by its stored record.
   */
  private async echoAsStatus(payload: ChannelEventPayload): Promise<ChannelEventPayload> {
    if (payload.type !== 'message' || !payload.message.fromMe || payload.message.edit) return payload;
    const { id, chatJid, timestamp } = payload.message;
    const sentHere = this.sent.has(id) || (await this.context.storage.messages.get(this.context.instanceId, id))?.key.fromMe === true;
    return sentHere ? { type: 'message.status', messageId: id, chatJid, recipientId: chatJid, status: 'sent', timestamp } : payload;
  }

  /**
   * Gives `message` the referral its sender came through without writing (`messaging_referrals`),
   * unless it carries one of its own; answers the sender whose pending referral is then used up.
   */
  private async withPendingReferral(message: InboundMessage): Promise<string | undefined> {
    const pending = await this.referrals.pending(message.from);
    if (pending === undefined) return undefined;
    message.referral ??= pending;
    return message.from;
  }

  /** Waits for background profile lookups; there is no connection to close. */
  async stop(): Promise<void> {
    await this.profiles.stop();
  }

  private async credentials(): Promise<GraphCredentials> {
    const link: SocialLink | undefined = (await this.context.instance()).links[this.channel];
    if (!link) throw new ConflictError(`${this.profile.label} is not linked to this instance`, 'not_linked');
    return { accessToken: link.accessToken, appSecret: link.appSecret };
  }

  private async lookupProfile(userId: string): Promise<SenderProfile> {
    const answer = await this.deps.client.get<ProfileAnswer>(userId, await this.credentials(), { fields: this.profile.profileFields });
    return {
      ...(typeof answer.name === 'string' && answer.name !== '' ? { name: answer.name } : {}),
      ...(typeof answer.username === 'string' && answer.username !== '' ? { username: answer.username } : {}),
      ...(typeof answer.profile_pic === 'string' && answer.profile_pic !== '' ? { picture: answer.profile_pic } : {}),
    };
  }
}

/** A message the user wrote: not an echo of the account's own, nor a reaction or an edit of an earlier message. */
function isWritten(message: InboundMessage): boolean {
  return !message.fromMe && message.edit === undefined && message.content.type !== 'reaction';
}

function withProfile(message: InboundMessage, profile: SenderProfile | null): void {
  if (!profile) return;
  if (profile.name) {
    message.pushName = profile.name;
    message.record.pushName = profile.name;
  }
  if (profile.username) message.username = profile.username;
  if (profile.picture) message.picture = profile.picture;
}
