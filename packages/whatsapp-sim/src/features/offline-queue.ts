import { getBinaryNodeChild, getBinaryNodeChildren, type BinaryNode } from '@whiskeysockets/baileys';
import { SERVER } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import type { ClientConnection } from '../transport/connection.js';
import type { CompanionDevice } from '../network/model.js';

/** Most stanzas one batch hands over, whatever the client asks (Baileys asks for 100). */
export const MAX_OFFLINE_BATCH = 500;

/** Longest the end of a hand-over waits for the acknowledgements {@link OfflineQueue.endAfterAcks} asked for. */
export const ACK_WAIT_MS = 10_000;

/** The stanzas a device missed, tagged as WhatsApp tags them: Baileys files an `offline` message as `append`. */
const OFFLINE_TAGS = new Set(['message', 'receipt', 'notification', 'call']);

/**
 * Hands a device what the server kept while it was away, in batches the client asks for: at login an
 * `<ib><offline_preview count/>` saying how much waits; the client answers `<ib><offline_batch count="N"/>`
 * (Baileys Socket/socket.js CB:ib,,offline_preview asks for 100, once per preview), the server sends the
 * next N stanzas, each marked `offline`, and a new preview while more wait; after the last, `<ib><offline
 * count/>` with the total (Baileys flushes its event buffer and reports receivedPendingNotifications).
 * Stanzas for the device that arrive meanwhile join the end of the queue, so nothing overtakes what waited.
 * For stanzas named with {@link endAfterAcks}, the end waits until the device acknowledged them.
 */
export class OfflineQueue {
  /** Devices handing over their queue, with how many they handed over so far. */
  private readonly draining = new Map<CompanionDevice, number>();
  /** Ids of stanzas a device must acknowledge (a receipt or an ack) before its hand-over ends. */
  private readonly awaited = new Map<CompanionDevice, Set<string>>();
  /** Hand-overs whose last batch went out and that wait for those acknowledgements, with their deadline. */
  private readonly ending = new Map<CompanionDevice, NodeJS.Timeout>();

  /**
   * The next hand-over of `device` ends (`<ib><offline>`) only once the device acknowledged the stanzas
   * `ids` (or after {@link ACK_WAIT_MS}): Baileys handles a stanza marked offline before it acknowledges the
   * next one, so everything up to the last of them is handled inside the window in which it buffers its
   * events from login to `<ib><offline>` (Socket/socket.js), as with a hand-over long enough to outlast them.
   */
  endAfterAcks(device: CompanionDevice, ids: string[]): void {
    const set = this.awaited.get(device) ?? new Set<string>();
    for (const id of ids) set.add(id);
    this.awaited.set(device, set);
  }

  /** Whether `device`'s queue is being handed over (new stanzas must wait behind it). */
  isDraining(device: CompanionDevice): boolean {
    return this.draining.has(device);
  }

  /** After a login: the preview, or at once the end of an empty queue (a hand-over a closed socket cut short starts again). */
  start(device: CompanionDevice): void {
    clearTimeout(this.ending.get(device));
    this.ending.delete(device);
    if (device.pending.length === 0) {
      this.awaited.delete(device);
      this.draining.delete(device);
      this.finish(device, 0);
      return;
    }
    this.draining.set(device, 0);
    this.preview(device);
  }

  /** The client asked for a batch of `count` stanzas. */
  batch(device: CompanionDevice, count: number): void {
    const sent = this.draining.get(device);
    if (sent === undefined) return;
    const size = Math.min(Math.max(1, Number.isFinite(count) ? Math.floor(count) : 1), MAX_OFFLINE_BATCH);
    const nodes = device.pending.splice(0, size);
    for (const node of nodes) device.connection?.send(OFFLINE_TAGS.has(node.tag) ? { ...node, attrs: { ...node.attrs, offline: '1' } } : node);
    this.afterBatch(device, sent + nodes.length);
  }

  /** After a batch: a preview while more wait, else the end, once the awaited acknowledgements came. */
  private afterBatch(device: CompanionDevice, total: number): void {
    this.draining.set(device, total);
    if (device.pending.length > 0) {
      this.preview(device);
      return;
    }
    if ((this.awaited.get(device)?.size ?? 0) > 0) {
      if (!this.ending.has(device)) this.ending.set(device, setTimeout(() => this.acknowledged(device, undefined), ACK_WAIT_MS).unref());
      return;
    }
    this.draining.delete(device);
    this.finish(device, total);
  }

  /** A receipt or ack from `device` for the stanzas `ids` (none: the wait is over). */
  private acknowledged(device: CompanionDevice, ids: string[] | undefined): void {
    const awaited = this.awaited.get(device);
    if (!awaited) return;
    for (const id of ids ?? [...awaited]) awaited.delete(id);
    if (awaited.size > 0) return;
    this.awaited.delete(device);
    const timer = this.ending.get(device);
    const total = this.draining.get(device);
    if (timer === undefined || total === undefined) return;
    clearTimeout(timer);
    this.ending.delete(device);
    this.afterBatch(device, total);
  }

  /** The `ib` stanzas of a client: batch requests go to the queue, the rest (acks of `ib` pushes) are dropped. */
  feature(network: Network): Feature {
    return {
      stanzas: {
        ib: (connection, node) => {
          const request = getBinaryNodeChild(node, 'offline_batch');
          const device = request ? network.session(connection)?.device : undefined;
          if (device) this.batch(device, Number(request!.attrs.count));
        },
        receipt: (connection, node) => this.acknowledgedBy(network, connection, node),
        ack: (connection, node) => this.acknowledgedBy(network, connection, node),
      },
    };
  }

  private acknowledgedBy(network: Network, connection: ClientConnection, node: BinaryNode): void {
    const device = network.session(connection)?.device;
    if (!device || !this.awaited.has(device)) return;
    const items = getBinaryNodeChildren(getBinaryNodeChild(node, 'list'), 'item').map((item) => item.attrs.id ?? '');
    this.acknowledged(device, [node.attrs.id ?? '', ...items]);
  }

  private preview(device: CompanionDevice): void {
    const counts: Record<string, number> = {};
    for (const node of device.pending) counts[node.tag] = (counts[node.tag] ?? 0) + 1;
    device.connection?.send(ibNode({
      tag: 'offline_preview',
      attrs: {
        count: String(device.pending.length), message: String(counts.message ?? 0), notification: String(counts.notification ?? 0),
        receipt: String(counts.receipt ?? 0), call: String(counts.call ?? 0),
      },
    }));
  }

  private finish(device: CompanionDevice, total: number): void {
    device.connection?.send(ibNode({ tag: 'offline', attrs: { count: String(total) } }));
  }
}

function ibNode(child: BinaryNode): BinaryNode {
  return { tag: 'ib', attrs: { from: SERVER }, content: [child] };
}
