import type { ChannelDriver, Storage } from '@parley/core';
import { describeChannelConformance } from '@parley/testkit';
import type { MetaChannelProfile } from '../channel-profile.js';
import { META_RECORD_MEMBERS, metaFarSide } from './conformance-far-side.js';
import { testInstance, testLink } from './driver-harness.js';
import { useMockGraph } from './mock-graph.js';

/** The accounts a Meta channel's conformance run links and talks to. */
export interface MetaConformancePeers {
  /** The linked account (Instagram account id, Page id). */
  account: string;
  /** The peer's platform user id. */
  user: string;
}

/**
 * Runs `@parley/testkit`'s channel conformance suite for a Meta channel over a mock Graph API of its
 * own: messaging only, the send types both Meta channels share, the far side of {@link metaFarSide},
 * and what the channel's profile declares of its receipts and inbound attachments.
 *
 * @param createDriver the channel's driver calling `graphBaseUrl` (profile lookups off: the suite
 *   checks mapping, not enrichment)
 * @param storage a fresh real storage back end (not initialized yet)
 */
export function describeMetaChannelConformance(
  profile: MetaChannelProfile, createDriver: (graphBaseUrl: string) => ChannelDriver, storage: () => Storage, peers: MetaConformancePeers,
): void {
  const graph = useMockGraph();
  const link = testLink(profile.channel, peers.account);
  const { user } = peers;
  describeChannelConformance(profile.channel, {
    declares: {
      capabilities: ['messaging'],
      sends: META_RECORD_MEMBERS,
      statuses: profile.receipts.statuses,
      inbound: ['text', ...profile.inboundMedia, 'reaction'],
      peer: { to: user, chatJid: user },
      echoesSends: false,
    },
    async start() {
      const store = storage();
      await store.init();
      return {
        driver: createDriver(graph.url),
        storage: store,
        instance: testInstance(`ins_conformance_${link.channel}`, [link]),
        farSide: metaFarSide({ graph, link, user, webhookObject: profile.webhookObject, readBy: profile.receipts.readBy }),
      };
    },
  });
}
