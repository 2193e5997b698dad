import type {
  CapabilityName, ChannelAdapter, ChannelDriver, ChannelEventPayload, DeliveryStatus, DriverResponse, InboundContent, InstanceRecord,
  MediaLimits, MessageRecord, OutgoingType, Storage,
} from '@parley/core';

/** Inbound content types the suite can ask a far side to send. */
export type ConformanceInboundKind = Extract<InboundContent['type'], 'text' | 'image' | 'audio' | 'video' | 'document' | 'sticker' | 'location' | 'contacts' | 'reaction'>;

/**
 * What a channel declares it does, as data: the suite tests exactly this, and answers 422 for the
 * rest. Differences between channels live here, never in checks of the adapter's class.
 */
export interface ChannelConformanceDeclaration {
  /**
   * The capability families the adapter exposes. Every other family must be absent and answer 422
   * `capability_not_supported` through `requireCapability`.
   */
  capabilities: readonly CapabilityName[];
  /**
   * Each send type the channel handles, with the one member of the record's `message` it produces
   * (`text` → `extendedTextMessage`, …). `messaging.supports` must answer true for exactly these.
   */
  sends: Partial<Record<OutgoingType, string>>;
  /**
   * Members a record's `message` may carry beside its typed member (in any order), for the protocol's context
   * (WhatsApp's `messageContextInfo`, which holds a poll's secret). None when absent.
   */
  contextMembers?: readonly string[];
  /** Delivery statuses the far side reports for a sent message, in the order they arrive. */
  statuses: readonly DeliveryStatus[];
  /** Inbound content types the far side can send to the instance. */
  inbound: readonly ConformanceInboundKind[];
  /** The recipient of sends: `to` as a caller gives it and the chat JID records name (`remoteJid`). */
  peer: { to: string; chatJid: string };
  /**
   * True when the adapter reports its own sends as `message` events (`fromMe`, the same record), as
   * linked devices see them; false when it must not.
   */
  echoesSends: boolean;
  /**
   * The channel downloads the attachments of received messages (`messaging.downloadMedia`) within the
   * host's limits of received media it is built with (docs/plugins.md, "Received media limits"): the
   * suite starts runs with small limits (`start({ media })`) and has the far side deliver `kind` with
   * attachments larger than declared, declared too large, and stalling. Absent: not checked here.
   */
  receivedMedia?: { kind: ConformanceInboundKind };
}

/** The attachment of a received message the suite asks for (see {@link ChannelConformanceDeclaration.receivedMedia}). */
export interface InboundAttachment {
  /** Bytes the network serves. */
  bytes: number;
  /** The size the message (or the network's file lookup) declares, when it is not `bytes`. */
  declaredBytes?: number;
  /** The network sends the headers and the first byte, then nothing more. */
  stalls?: boolean;
}

/** One inbound message the suite asks the far side to send to the instance. */
export interface InboundRequest {
  kind: ConformanceInboundKind;
  /** The text of a `text` message (and the caption of media, where the channel has captions). */
  text: string;
  /** A fresh message id the far side may use when it chooses ids (Meta's `mid`, WhatsApp's key id). */
  id: string;
  /** Only for channels declaring `receivedMedia`: the attachment the network serves for this message. */
  attachment?: InboundAttachment;
}

/**
 * The server's side of one run, handed to the far side: the adapter under test, the storage, the
 * events the adapter emitted and the driver's routes, called as the server calls them.
 */
export interface ConformanceHost {
  readonly driver: ChannelDriver;
  readonly storage: Storage;
  /** The instance record, as stored (re-read on every call). */
  instance(): Promise<InstanceRecord>;
  /** The adapter under test: after a restart, the new one. */
  adapter(): ChannelAdapter;
  /** Every payload the adapters of this run emitted, in order. */
  readonly events: readonly ChannelEventPayload[];
  /**
   * Calls the driver route `method path` (its path as declared, for example `/webhook`) the way the
   * server does, with the index of linked accounts holding the instance's links.
   */
  route(method: 'get' | 'post' | 'put' | 'delete', path: string, request?: RouteCall): Promise<DriverResponse>;
  /** Resolves with the first emitted payload `match` accepts (waiting for it, bounded). */
  waitFor<T extends ChannelEventPayload>(what: string, match: (payload: ChannelEventPayload) => payload is T): Promise<T>;
}

/** What a route call carries; absent members are empty. */
export interface RouteCall {
  params?: Record<string, string>;
  query?: Record<string, string | undefined>;
  headers?: Record<string, string | undefined>;
  body?: unknown;
  rawBody?: Buffer;
}

/**
 * The other end of the channel, driven by the channel's own test: the peer phone, the fake socket
 * or the mock API. Each method acts as the peer or the network would, then returns; the suite
 * checks what the adapter made of it.
 */
export interface ChannelFarSide {
  /**
   * Brings the current adapter to a usable state: for main channels, connects it and lets the
   * network accept the session (a QR scan when none is stored). Called again after a restart.
   */
  connect(): Promise<void>;
  /**
   * Main channels whose `connection.restart()` needs the network's answer (a new socket to accept):
   * accepts the connection the adapter reopened. Channels that reopen on their own leave it out.
   */
  reopen?(): Promise<void>;
  /** Makes the peer send `request` to the instance; answers the message id the instance receives. */
  deliverInbound(request: InboundRequest): Promise<string>;
  /**
   * Makes the peer (or the network) report `status` for the sent message `record`. A no-op when
   * the channel reports this status on its own (the sandbox's `sent` and `delivered`).
   */
  acknowledge(record: MessageRecord, status: DeliveryStatus): Promise<void>;
  /** Releases what the far side holds (peer adapters, servers); runs after each test. */
  close?(): Promise<void>;
}

/** One run of the suite: a driver, a real storage, the instance it serves and its far side. */
export interface ChannelConformanceRun {
  driver: ChannelDriver;
  /** A real storage back end, initialized, holding no record of `instance` yet; the suite stores it and closes the storage. */
  storage: Storage;
  /** The instance the adapter serves (its driver options, social links). */
  instance: InstanceRecord;
  /** Builds the far side once the suite has wired the host. */
  farSide(host: ConformanceHost): ChannelFarSide | Promise<ChannelFarSide>;
}

/** How a channel plugs into {@link describeChannelConformance}. */
export interface ChannelConformanceHarness {
  declares: ChannelConformanceDeclaration;
  /**
   * A new, isolated run for one test (fresh storage, driver and far side). `media`: the host's limits
   * of received media to build the driver with (given by the checks of `receivedMedia`; the defaults otherwise).
   */
  start(options?: { media?: MediaLimits }): Promise<ChannelConformanceRun>;
  /** Runs once after the suite (mock servers, temporary directories). */
  cleanup?(): Promise<void>;
}
