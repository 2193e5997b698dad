import {
  ConflictError, NotFoundError, type ChannelAdapter, type ChannelAddressing, type ChannelName, type ConnectionState, type ConnectionStatus, type InstanceRecord,
} from '@parley/core';

/** A loaded instance: its current record and its channel adapters. */
export class InstanceRuntime {
  readonly social = new Map<ChannelName, ChannelAdapter>();

  constructor(
    public record: InstanceRecord,
    readonly main: ChannelAdapter,
    /** How the main channel addresses people (its driver's declaration): every main-channel address a caller gives goes through it. */
    readonly addressing: ChannelAddressing,
  ) {}

  get id(): string {
    return this.record.id;
  }

  /**
   * The adapter for a `provider` (spec 1.6): the main channel by default or when `provider` names
   * it; a linked social channel otherwise (409 `channel_not_linked` when it is not linked).
   */
  adapter(provider?: ChannelName): ChannelAdapter {
    if (!provider || provider === this.main.channel) return this.main;
    const adapter = this.social.get(provider);
    if (!adapter) throw new ConflictError(`${provider} is not linked to this instance`, 'channel_not_linked');
    return adapter;
  }

  /** Live connection state of the main channel (the adapter's view, falling back to the record). */
  isConnected(): boolean {
    return this.main.capabilities.connection?.state().phoneConnected ?? this.record.phoneConnected;
  }

  /**
   * Connected account. Whether and as whom the instance is connected is the adapter's live view; the
   * profile (name, picture) is the record's, which every profile route updates — adapters keep the
   * user they saw when the connection opened.
   */
  user(): InstanceRecord['user'] {
    const live = this.main.capabilities.connection?.state();
    if (!live) return this.record.user;
    if (!live.user) return null;
    return this.record.user?.id === live.user.id ? this.record.user : live.user;
  }

  /**
   * What the main channel's connection is doing: the adapter's own status where it reports one,
   * else `open` or `disconnected` from `phoneConnected`.
   */
  connection(): Pick<ConnectionState, 'failure' | 'lastError' | 'simulator'> & { status: ConnectionStatus } {
    const live = this.main.capabilities.connection?.state();
    const connected = live?.phoneConnected ?? this.record.phoneConnected;
    return {
      status: live?.status ?? (connected ? 'open' : 'disconnected'),
      ...(live?.lastError ? { lastError: live.lastError } : {}),
      ...(live?.failure ? { failure: live.failure } : {}),
      ...(live?.simulator ? { simulator: live.simulator } : {}),
    };
  }

  /** Every adapter, main first. */
  adapters(): ChannelAdapter[] {
    return [this.main, ...this.social.values()];
  }
}

/** Thrown for an unknown instance key or id. */
export function instanceNotFound(): NotFoundError {
  return new NotFoundError('instance', 'instance_not_found');
}

/**
 * The one "not connected" check: 409 `not_connected` unless the instance's main channel is
 * connected (every operation that needs the connection calls it before any side effect).
 */
export function ensureConnected(runtime: InstanceRuntime): void {
  if (!runtime.isConnected()) throw notConnected(runtime);
}

/**
 * The 409 `not_connected` of an operation that needs the main channel connected, saying what the
 * connection waits for: a QR scan, a pairing code, WhatsApp (with the last failure), or a connect.
 */
function notConnected(runtime: InstanceRuntime): ConflictError {
  const { status, lastError, failure } = runtime.connection();
  const prefix = 'the instance is not connected: ';
  const details = { status, ...(lastError ? { lastError } : {}) };
  const last = lastError ? ` (last attempt: ${lastError.message}${lastError.cause ? `, ${lastError.cause}` : ''})` : '';
  switch (status) {
    case 'waiting_for_qr_scan':
      return new ConflictError(`${prefix}waiting for QR scan (the QR code is answered by POST /{key}/instance and sent as qrcode events)`, 'not_connected', details);
    case 'waiting_for_pairing_code':
      return new ConflictError(`${prefix}waiting for the pairing code to be entered on the phone`, 'not_connected', details);
    case 'connecting':
      return new ConflictError(`${prefix}connecting${last}`, 'not_connected', details);
    case 'stopped':
      return new ConflictError(
        `${prefix}the connection stopped (${failure?.reason ?? lastError?.reason ?? 'failed'}${last}); connect it again with POST /{key}/instance`,
        'not_connected', details,
      );
    default:
      return new ConflictError(`${prefix}connect it with POST /{key}/instance first`, 'not_connected', details);
  }
}
