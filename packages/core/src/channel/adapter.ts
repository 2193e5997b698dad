import type { PacingPolicy } from '../outbound/pacing-policy.js';
import type { CapabilityGaps, ChannelCapabilities } from '../capabilities/index.js';
import type { ChannelAddressing, ChannelName } from '../domain/channel-name.js';
import type { InstanceRecord, SocialLink } from '../domain/instance.js';
import type { MessageContent } from '../domain/message.js';
import type { OutgoingContent } from '../domain/outgoing.js';
import type { Logger } from '../logger.js';
import type { Storage } from '../storage/storage.js';
import type { EventSink } from './events.js';

/**
 * One channel connection of one instance. Adapters know nothing about HTTP routes or webhooks: they
 * map capability calls onto their protocol and emit normalized events.
 */
export interface ChannelAdapter {
  readonly channel: ChannelName;
  /** What this adapter can do; absent members answer 422. */
  readonly capabilities: ChannelCapabilities;
  /** Optional reasons for absent capabilities, shown in the 422 message. */
  readonly capabilityGaps?: CapabilityGaps;
  /**
   * Optional: takes one inbound notification a driver route received for this adapter's account
   * (for example one `entry[]` of a Meta webhook, after the route checked its signature), emits the
   * channel events it carries and answers how many it emitted. Driver routes find the instance with
   * {@link DriverRequest.linkedAccount} and hand the payload over with {@link DriverRequest.ingest};
   * an adapter without `ingest` receives nothing that way.
   */
  ingest?(payload: unknown): Promise<number>;
  /**
   * Closes sockets and timers without logging out (server shutdown, instance unload). Idempotent.
   *
   * May be called while a `connection.connect()` (or a restart) is under way, and must not wait for
   * it: a cluster node stops an instance at its lease's deadline, when that connect may be hanging on
   * storage. The connect then leaves nothing connected (it notices the stop after each await), so no
   * account is ever online on a node that no longer owns it.
   */
  stop(): Promise<void>;
}

/** What the server gives a driver to create an adapter for one instance. */
export interface ChannelContext {
  /** Public instance id: the partition of every storage repository. */
  readonly instanceId: string;
  /** Current instance record (re-read on every call; settings change at run time). */
  instance(): Promise<InstanceRecord>;
  /** Emits a normalized event; the server stamps, stores and routes it to webhooks. */
  emit: EventSink;
  /**
   * Resolves once every event emitted so far has been processed: stored, and queued for the
   * instance's webhooks. A channel that must not forget what it received before it is stored (the
   * sandbox network's inbox) awaits it before letting go. Absent where `emit` handles an event
   * completely before it returns (test harnesses that record events).
   */
  settled?(): Promise<void>;
  /**
   * Runs `task` in the instance's event order: after every event emitted so far is handled (its writes
   * durable), before any emitted later. For a write of the channel's own to a record its events also
   * write (a message's stored media path, read then written whole): a status the events move meanwhile
   * cannot be overwritten with an older one. Absent where events are handled as `emit` returns.
   */
  inOrder?(task: () => Promise<void>): Promise<void>;
  storage: Storage;
  /** Logger bound to the instance id and the channel (`instance`, `channel`): an adapter binds neither again (pino would write them twice). */
  logger: Logger;
}

/**
 * A channel driver: registered by a channel plugin, asked by the server for one adapter per
 * instance (architecture: `ChannelDriver.create(instanceConfig, deps)`).
 */
export interface ChannelDriver {
  /**
   * The channel name this driver claims in configuration and at instance creation (`whatsapp`,
   * `sandbox`, `instagram`, `messenger`, or a plugin's own). A channel id (`CHANNEL_ID_PATTERN`),
   * declared in the plugin's `provides.channels`. Two drivers claiming one name refuse to boot.
   */
  readonly name: string;
  /**
   * Wire channel it drives (the sandbox simulates `whatsapp`): the `provider` of sends, records and
   * events. A channel id; any id a plugin chooses becomes part of the server's provider enum.
   */
  readonly channel: ChannelName;
  /** Main-channel drivers back an instance; social drivers link beside one (spec 1.6). */
  readonly role: 'main' | 'social';
  /** How {@link channel} addresses people (the `to` of sends; whether `allowNumber` applies). */
  readonly addressing: ChannelAddressing;
  /** Creates the adapter of one instance. Must not do network I/O before `connect`. */
  create(context: ChannelContext): ChannelAdapter | Promise<ChannelAdapter>;
  /**
   * The `message` of the record (spec 2.4) of a send this channel has not taken yet: while it waits in
   * the outbound queue, and when it failed for good. Pure (no I/O); `nowMs` is when it was accepted.
   * Drivers of one channel answer the same. Absent: core's `recordMessageOf(content)`.
   */
  pendingRecord?(content: OutgoingContent, nowMs: number): MessageContent;
  /**
   * Validates and normalizes driver-specific creation options of an instance (for example the
   * sandbox phone number). Throws ValidationError naming the field. It never sees other instances:
   * uniqueness goes through {@link uniqueOptions}, whose lookups are indexed.
   */
  instanceOptions?(input: Record<string, unknown>, unique: UniqueOptionLookup): Record<string, unknown> | Promise<Record<string, unknown>>;
  /**
   * Members of the normalized options whose string values are unique among this driver's instances
   * (the sandbox's `number`). The server claims each with the record in one atomic write (namespace
   * `<driver name>:<member>`, see `UniqueClaim`) and answers 409 `<member>_taken` when another
   * instance holds the value; deleting the instance frees it.
   */
  readonly uniqueOptions?: readonly string[];
  /**
   * Social drivers: validates link input (checking the token against the channel) and answers the
   * link to store. Throws ValidationError or UpstreamError with a clear message.
   */
  link?(input: Record<string, unknown>): Promise<SocialLink>;
  /**
   * Default outbound pacing of this driver's instances (issue 16), until an instance sets its own
   * through `PUT /{key}/queue/policy`. Absent: {@link PACING_OFF}.
   */
  readonly pacing?: PacingPolicy;
  /** Extra routes mounted under `/<name>/…` (for example the sandbox scan and Meta webhook endpoints). */
  routes?: DriverRoute[];
  /**
   * Releases driver-wide resources at shutdown: called once every instance has stopped, and awaited
   * before storage closes, so a driver may finish writes its instances' stops left under way. The server
   * runs it alongside its own last steps (draining events, stopping deliveries). `shutdown` aborts when
   * the stop's time is spent (`shutdownTimeoutMs` counted from the stop request, as for open requests):
   * a driver that waits for something stops waiting then, so the stop keeps its bound.
   */
  close?(shutdown: AbortSignal): Promise<void>;
  /**
   * Connections per second the server starts for this driver's instances when it restores them
   * (after a restart or when taking instances over), unless `restore.perSecond` in the server's
   * configuration says otherwise: low for a network that punishes a reconnect storm (WhatsApp),
   * high for a simulated one. The server's default (10) applies when absent.
   */
  readonly restorePerSecond?: number;
  /**
   * Work waiting for an instance's channel connection that storage alone shows, beyond the queued
   * webhook deliveries the server counts itself (the sandbox: packets waiting in the phone's
   * inbox). Instances with pending work are restored first. Answers a count; 0 when none.
   */
  pendingWork?(instanceId: string, storage: Storage): Promise<number>;
}

/** Indexed lookups of {@link ChannelDriver.uniqueOptions} values, for drivers that assign one. */
export interface UniqueOptionLookup {
  /** Whether another instance of this driver holds `value` as its `member` option. */
  taken(member: string, value: string): Promise<boolean>;
}

/** A raw HTTP route a driver contributes (for inbound webhooks or simulation controls). */
export interface DriverRoute {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Express path, relative to `/<driver name>`. */
  path: string;
  /** Needs the raw body (for signature checks) instead of parsed JSON. */
  rawBody?: boolean;
  /** Needs the admin token. */
  admin?: boolean;
  /**
   * Largest body the route reads, in bytes (413 above it). Without it, the server's `bodyLimitBytes`
   * (1 MiB by default) applies; routes that receive a third party's documented larger payloads say so.
   */
  bodyLimitBytes?: number;
  summary: string;
  /**
   * JSON Schema of the query string: shown in the OpenAPI document and checked (400 naming the
   * member) before the handler runs. Values are strings.
   */
  query?: Record<string, unknown>;
  /** JSON Schema of the JSON body, documented and checked like `query` (not with `rawBody`). */
  body?: Record<string, unknown>;
  /**
   * What a success answers, for the OpenAPI document: a JSON Schema, `{ binary: [content types] }`
   * or `{ text: content type }`. Without it, "a channel-specific JSON object".
   */
  response?: Record<string, unknown> | { binary: string[] } | { text: string };
  /**
   * Error statuses the handler answers or raises (its own `status`, or a thrown error's), besides
   * those the host answers for every route (400, 413, 415, 500, 503; 401 with `admin`). The OpenAPI
   * document lists them; an answer outside them is reported as a bug.
   */
  errors?: number[];
  handler(request: DriverRequest): Promise<DriverResponse>;
}

/** The framework-neutral request a driver route receives. */
export interface DriverRequest {
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  headers: Record<string, string | undefined>;
  /** Parsed JSON, or undefined with `rawBody`. */
  body: unknown;
  rawBody?: Buffer;
  /**
   * Looks up the adapter this driver made for an instance, by public id: its main adapter, or the
   * one of its link to this social driver. NotFoundError (404 `instance_not_found`) when the id is
   * unknown or the instance is neither this driver's nor linked to it; then nothing is loaded.
   */
  adapter(instanceId: string): Promise<ChannelAdapter>;
  /**
   * Hands one inbound notification (checked by the route: signature, account) to the `ingest` of the
   * adapter this driver made for the instance (see {@link adapter}), wherever the instance runs: a cluster node that does not run it
   * forwards the signed request to the node that does, so the events are emitted once, by the owner.
   * Answers how many events it emitted.
   */
  ingest(instanceId: string, payload: unknown): Promise<number>;
  /** Looks up an instance by its secret key (NotFoundError when unknown); for routes carrying a key. */
  instanceByKey(key: string): Promise<InstanceRecord>;
  /**
   * The instance linking `accountId` on a social channel (the `entry[].id` of an inbound webhook),
   * or null. An indexed lookup: its cost does not grow with the number of instances.
   */
  linkedAccount(channel: ChannelName, accountId: string): Promise<LinkedAccount | null>;
  /**
   * True when some instance linked on `channel` has this verify token (webhook subscription
   * handshakes carry no account id). Looked up by the token's hash, so timing says nothing of it.
   */
  hasVerifyToken(channel: ChannelName, token: string): Promise<boolean>;
}

/** Hands `payload` to the adapter's `ingest` (a {@link DriverRequest.ingest} served where the instance runs); throws when it has none. */
export async function ingestInto(adapter: ChannelAdapter, instanceId: string, payload: unknown): Promise<number> {
  if (!adapter.ingest) throw new Error(`${adapter.channel} adapter of ${instanceId} cannot ingest webhooks`);
  return adapter.ingest(payload);
}

/** A social account and the instance that links it. */
export interface LinkedAccount {
  instanceId: string;
  link: SocialLink;
}

/** The answer of a driver route; `body` is sent as JSON, unless it is a string (text) or a Buffer (bytes). */
export interface DriverResponse {
  status: number;
  body?: unknown;
  contentType?: string;
}
