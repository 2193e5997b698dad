import type { SinkSettings } from '../sink/sink.js';
import type { AccountUser, BusinessProfile, HealthStatus } from './account.js';
import type { ChannelName } from './channel-name.js';

/** Webhook settings of an instance (spec 2.2), written with `PUT /{key}/instance`. */
export interface WebhookSettings {
  /** Master switch: nothing is delivered while false. */
  allowWebhook: boolean;
  /** `all`, or a comma-separated list of phone numbers (digits) whose events are forwarded. */
  allowNumber: string;
  /** `native`, `meta` or `both`. */
  webhookFormat: WebhookFormatName;
  /** Default URL, used for every event type whose own URL is empty. */
  webhookMessage: string;
  webhookGroup: string;
  webhookConnection: string;
  webhookQrCode: string;
  webhookMessageFromMe: string;
  webhookHistory: string;
}

/**
 * One `allowNumber` entry: a phone number with country code or a group id (`120363…` of `…@g.us`,
 * up to 20 digits), with an optional leading `+`. The settings schema and the webhook engine both
 * use it, so what the API accepts is exactly what the engine can match.
 */
export const ALLOW_NUMBER_ENTRY = '\\+?(\\d{6,20})';

/** The whole `allowNumber` value: `all` or a comma-separated list of {@link ALLOW_NUMBER_ENTRY}; spaces around entries allowed. */
export const ALLOW_NUMBER_PATTERN = `^\\s*(all|${ALLOW_NUMBER_ENTRY}(\\s*,\\s*${ALLOW_NUMBER_ENTRY})*)\\s*$`;

/** Webhook format selector of spec 2.2 / 9.2, or the name of a webhook-format plugin. */
export type WebhookFormatName = 'native' | 'meta' | 'both' | (string & {});

/** Behaviour toggles of an instance (spec 2.1), written with `PATCH /{key}/instance`. */
export interface InstanceFlags {
  receiveStatusMessage: boolean;
  saveMedia: boolean;
  receivePresence: boolean;
  markMessages: boolean;
  permission: number;
  blocked: boolean;
}

/** A linked social channel (Instagram professional account or Facebook Page). Secrets stay in storage. */
export interface SocialLink {
  channel: ChannelName;
  /** Instagram account id or Page id: `entry[].id` of inbound webhooks. */
  accountId: string;
  accessToken: string;
  appSecret: string;
  verifyToken: string;
  username?: string;
  linkedAt: number;
}

/** Settings of an external database (`POST /{key}/instance/mongodb`). */
export interface ExternalDatabase {
  uri: string;
  dbName: string;
}

/** An external database as an instance record keeps it: with the connector kind that attached it. */
export interface AttachedExternalDatabase extends ExternalDatabase {
  /** Kind of the connector that attached it (`mongodb`): it is reconnected through that connector at start. */
  kind: string;
}

/**
 * An instance as stored: one messaging account behind one secret key. The REST view of spec 2.1 is
 * derived from it; secrets (`key`, `webhookSecret`, link tokens, database credentials) never leave
 * the server except in the admin API's answers.
 */
export interface InstanceRecord {
  /**
   * Public, immutable instance id (`ins_…`): the `instance` of webhook payloads, the partition of
   * every storage repository, the handle in logs and admin listings. Not a secret.
   */
  id: string;
  /** Secret API key (≥128 random bits, URL-safe): the first path segment of every REST call. */
  key: string;
  name: string;
  /** Main-channel driver name (`baileys`, `sandbox`, …). */
  driver: string;
  createdAt: number;
  flags: InstanceFlags;
  webhook: WebhookSettings;
  /** Per-instance HMAC secret for webhook signatures (`whsec_…`). */
  webhookSecret: string;
  user: AccountUser | null;
  phoneConnected: boolean;
  /** True when the operator (or a QR scan) connected it and it has not logged out: restored at start. */
  wantsConnection: boolean;
  businessProfile?: BusinessProfile;
  proxy?: string;
  /** The instance's external database, when one is attached. */
  externalDatabase?: AttachedExternalDatabase;
  health: HealthStatus;
  /** Driver-specific creation options (for example the sandbox phone number). */
  driverOptions: Record<string, unknown>;
  /** Linked social channels, by channel id. */
  links: Partial<Record<ChannelName, SocialLink>>;
  /** Event-sink settings by sink name (`amqp`, `nats`); absent until one is set. */
  sinks?: Record<string, SinkSettings>;
}

/** Defaults of a fresh instance. */
export function defaultWebhookSettings(): WebhookSettings {
  return {
    allowWebhook: false, allowNumber: 'all', webhookFormat: 'native', webhookMessage: '', webhookGroup: '',
    webhookConnection: '', webhookQrCode: '', webhookMessageFromMe: '', webhookHistory: '',
  };
}

/** Defaults of a fresh instance's flags. */
export function defaultInstanceFlags(): InstanceFlags {
  return { receiveStatusMessage: false, saveMedia: false, receivePresence: true, markMessages: false, permission: 0, blocked: false };
}
