import type { ChannelDriver, DeliveryStatus, SocialLink, Storage } from '@parley/core';
import { describeChannelConformance, type ConformanceInboundKind } from '@parley/testkit';
import { META_RECORD_MEMBERS, metaFarSide } from './conformance-far-side.js';
import { testInstance } from './driver-harness.js';
import type { MockGraph } from './mock-graph.js';

/** What a Meta channel's package gives {@link describeMetaChannelConformance}: its differences, as data. */
export interface MetaConformanceOptions {
  /** The mock Graph API of the test file (`useMockGraph()`). */
  graph: MockGraph;
  /** The channel's driver calling `graphBaseUrl` (profile lookups off: the suite checks mapping, not enrichment). */
  createDriver(graphBaseUrl: string): ChannelDriver;
  /** A fresh real storage back end (not initialized yet). */
  storage(): Storage;
  link: SocialLink;
  /** The peer's platform user id. */
  user: string;
  webhookObject: string;
  readBy: 'mid' | 'watermark';
  /** The receipts the channel's webhooks carry, in order. */
  statuses: readonly DeliveryStatus[];
  inbound: readonly ConformanceInboundKind[];
}

/**
 * Runs `@parley/testkit`'s channel conformance suite for a Meta channel: messaging only, the send
 * types both Meta channels share, the far side of {@link metaFarSide}.
 */
export function describeMetaChannelConformance(label: string, options: MetaConformanceOptions): void {
  const { graph, link, user } = options;
  describeChannelConformance(label, {
    declares: {
      capabilities: ['messaging'],
      sends: META_RECORD_MEMBERS,
      statuses: options.statuses,
      inbound: options.inbound,
      peer: { to: user, chatJid: user },
      echoesSends: false,
    },
    async start() {
      const storage = options.storage();
      await storage.init();
      return {
        driver: options.createDriver(graph.url),
        storage,
        instance: testInstance(`ins_conformance_${link.channel}`, [link]),
        farSide: metaFarSide({ graph, link, user, webhookObject: options.webhookObject, readBy: options.readBy }),
      };
    },
  });
}
