import type { ConnectionOptions } from 'node:tls';
import { ConflictError, type CapabilityGaps, type ChannelAdapter, type ChannelCapabilities, type ChannelContext, type MediaLimits } from '@parley/core';
import type { ImportedSession } from './auth/session-import.js';
import { GuardedFetcher, parseProxy, type ResolveHost } from '@parley/net';
import { proto } from '@whiskeysockets/baileys';
import { callRejectCapability } from './capabilities/calls.js';
import { RecipientResolver } from './capabilities/recipients.js';
import { ServerAcks } from './events/server-acks.js';
import { catalogCapability } from './capabilities/catalog.js';
import { chatsCapability } from './capabilities/chats.js';
import { communitiesCapability } from './capabilities/communities.js';
import { connectionCapability } from './capabilities/connection.js';
import type { SimulatedPhones } from './simulator/in-process.js';
import { contactsCapability } from './capabilities/contacts.js';
import { groupsCapability } from './capabilities/groups.js';
import { labelsCapability } from './capabilities/labels.js';
import { messagingCapability } from './capabilities/messaging.js';
import { profileCapability } from './capabilities/profile.js';
import { statusCapability } from './capabilities/status.js';
import { ConnectionManager } from './connection/connection-manager.js';
import { EventRouter } from './events/event-router.js';
import { HealthMonitor } from './health/health-monitor.js';
import { LabelStore } from './labels/label-store.js';
import { moveLegacyState } from './labels/state-namespaces.js';
import type { InboundEnv } from './mapping/inbound-env.js';
import { storedMessages, type StoredMessageLookup } from './mapping/stored-message.js';
import type { ResolvedBaileysOptions } from './options.js';
import type { AdapterRuntime, MediaDownloader } from './runtime.js';
import type { BaileysSocket, SocketFactory } from './socket.js';
import { GroupMetadataCache } from './util/group-cache.js';
import { normalizeJid } from './util/jids.js';

/** Why the adapter lacks some capabilities (shown in the 422 answer). */
export const BAILEYS_CAPABILITY_GAPS: CapabilityGaps = {
  calls: 'Baileys cannot place, accept or end voice calls; only rejecting is possible (DELETE /{key}/call/{callId}/{callFrom})',
  mobile: 'Baileys 7 removed the mobile registration API; connect with a QR code or a pairing code (POST /{key}/instance/pairing-code)',
};

/** What the driver hands each adapter. */
export interface BaileysAdapterDeps {
  socketFactory: SocketFactory;
  options: ResolvedBaileysOptions;
  download: MediaDownloader;
  qrImage(qr: string): Promise<string>;
  allowPrivateUrls: boolean;
  /** Limits of media fetched from user-supplied URLs. */
  mediaLimits: MediaLimits;
  /** Resolves host names of user-supplied URLs and of the instance's proxy. */
  resolveHost: ResolveHost;
  /** The instance's proxy may be on a private network. */
  allowPrivateProxy: boolean;
  /** TLS options of media downloads through a proxy and of user-supplied URLs. */
  mediaTls?: ConnectionOptions;
  /** Unix ms. */
  now(): number;
  random(): number;
  /** The phones of the simulated network the channel runs on (the `simulator` option); absent on WhatsApp. */
  simulated?: SimulatedPhones;
}

/** The WhatsApp main-channel adapter of one instance, on Baileys. */
export class BaileysAdapter implements ChannelAdapter {
  readonly channel = 'whatsapp' as const;
  readonly capabilities: ChannelCapabilities;
  readonly capabilityGaps = BAILEYS_CAPABILITY_GAPS;
  private readonly router: EventRouter;
  private readonly connection: ConnectionManager;

  constructor(context: ChannelContext, deps: BaileysAdapterDeps) {
    // The host's logger names the instance and the channel already; binding `channel` again wrote it twice on every line.
    const logger = context.logger;
    const health = new HealthMonitor(deps.options.health, context.emit, deps.now);
    const stateMoved = moveLegacyState(context.storage.state, context.instanceId).catch((err: unknown) => {
      logger.warn({ err }, 'could not move the channel\'s labels and stories out of the namespaces of earlier versions; tried again at the next start');
    });
    const labels = new LabelStore(context.storage.state, context.instanceId, stateMoved);
    const stored = storedMessages(context);
    const groupCache = new GroupMetadataCache({ max: deps.options.groupCacheSize, ttlMs: 300_000, now: deps.now });
    const acks = new ServerAcks();
    this.router = new EventRouter({
      acks,
      emit: context.emit,
      health,
      labels,
      groupCache,
      logger,
      env: (socket) => inboundEnv(socket, deps.now, stored, async (id) => (await context.storage.messages.get(context.instanceId, id)) ?? undefined, groupCache),
      flags: async () => (await context.instance()).flags,
      undecryptableGraceMs: deps.options.undecryptableGraceMs,
    });
    this.connection = new ConnectionManager({
      context,
      options: deps.options,
      socketFactory: deps.socketFactory,
      health,
      groupCache,
      logger,
      listen: (socket) => this.router.listen(socket),
      onLoggedOut: async () => {
        groupCache.flushAll();
        await labels.clear();
      },
      qrImage: deps.qrImage,
      random: deps.random,
      now: deps.now,
      ...(deps.mediaTls ? { mediaTls: deps.mediaTls } : {}),
      proxyGuard: { allowPrivate: deps.allowPrivateProxy, resolve: deps.resolveHost },
      allowPrivateUrls: deps.allowPrivateUrls,
    });
    const fetcher = new GuardedFetcher({
      limits: deps.mediaLimits, allowPrivate: deps.allowPrivateUrls, allowPrivateProxy: deps.allowPrivateProxy, resolve: deps.resolveHost,
      // Read at each fetch, so a proxy changed since the socket opened applies at once.
      proxy: async () => parseProxy((await context.instance()).proxy),
      ...(deps.mediaTls ? { tls: deps.mediaTls } : {}),
    });
    const runtime: AdapterRuntime = {
      context, connection: this.connection, labels, groupCache, logger, fetcher, download: deps.download,
      receivedMedia: deps.mediaLimits, now: deps.now, recipients: new RecipientResolver(deps.now), acks, stateMoved,
    };
    this.capabilities = {
      connection: connectionCapability(this.connection, deps.simulated),
      profile: profileCapability(runtime),
      messaging: messagingCapability(runtime),
      chats: chatsCapability(runtime),
      callReject: callRejectCapability(runtime),
      labels: labelsCapability(runtime),
      contacts: contactsCapability(runtime),
      groups: groupsCapability(runtime),
      communities: communitiesCapability(runtime),
      catalog: catalogCapability(runtime),
      status: statusCapability(runtime),
    };
  }

  /** Resolves once every WhatsApp event received so far has been mapped and emitted. */
  async idle(): Promise<void> {
    await this.connection.idle();
    await this.router.idle();
  }

  async stop(): Promise<void> {
    await this.connection.stop();
    await this.router.stop();
  }

  /**
   * Replaces the instance's WhatsApp session with an imported one (`POST /whatsapp/instances/{key}/session`),
   * only while no connection runs (`disconnected`, `stopped`): else 409 `connection_active`, nothing changed.
   */
  async importSession(imported: ImportedSession): Promise<void> {
    const { status } = this.connection.state();
    if (status !== 'disconnected' && status !== 'stopped') {
      throw new ConflictError(`the instance's connection is ${status}: log it out (DELETE /{key}/instance) before importing a session`, 'connection_active', { status });
    }
    await this.connection.session.replace(imported.entries);
  }
}

function inboundEnv(
  socket: BaileysSocket, now: () => number, storedMessage: StoredMessageLookup, storedRecord: InboundEnv['storedRecord'], groups: GroupMetadataCache,
): InboundEnv {
  const user = socket.user;
  return {
    ownJid: user?.id ? normalizeJid(user.id) : '',
    ...(user?.lid ? { ownLid: normalizeJid(user.lid) } : {}),
    pnForLid: async (lid) => {
      const pn = await socket.signalRepository.lidMapping.getPNForLID(lid).catch(() => null);
      // Else a member's number a LID-addressed group's metadata told (Baileys rc14 does not store those pairs).
      return pn ? normalizeJid(pn) : groups.pnForLid(lid);
    },
    now: () => Math.floor(now() / 1000),
    storedMessage,
    storedRecord,
    linkedAt: () => linkTime(socket),
  };
}

/** When the phone linked this device: the timestamp of the device identity it signed (`creds.account.details`). */
function linkTime(socket: BaileysSocket): number | undefined {
  const details = socket.authState.creds.account?.details;
  if (!details) return undefined;
  try {
    const seconds = Number(proto.ADVDeviceIdentity.decode(details).timestamp ?? 0);
    return seconds > 0 ? seconds : undefined;
  } catch {
    return undefined;
  }
}
