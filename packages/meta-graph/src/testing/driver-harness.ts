import {
  LinkedAccountIndex, NotFoundError, defaultInstanceFlags, defaultWebhookSettings, ingestInto,
  type ChannelAdapter, type ChannelDriver, type ChannelEventPayload, type DriverResponse, type InstanceRecord, type Logger,
  type SocialLink, type Storage,
} from '@parley/core';

/** A driver wired as the server wires it, with captured events and direct route calls. */
export interface DriverHarness {
  /** Every payload the adapters emitted, in order. */
  readonly emitted: ChannelEventPayload[];
  /** The instance id of each emitted payload (same order as {@link DriverHarness.emitted}). */
  readonly emitters: string[];
  /** Warnings and errors logged (objects and messages), to assert secrets never appear. */
  readonly logged: unknown[];
  /** The adapter of an instance (created on first use, like the server does). */
  adapter(instanceId: string): Promise<ChannelAdapter>;
  /** Calls `GET /webhook` with the given query. */
  verify(query: Record<string, string>): Promise<DriverResponse>;
  /** Calls `POST /webhook` with the raw body and headers. */
  notify(rawBody: Buffer, headers: Record<string, string>): Promise<DriverResponse>;
  /**
   * Holds the adapters' `settled()` (the server storing and queueing what they emitted) until the
   * returned function is called: what a webhook answer waits for. Not held by default.
   */
  holdSettled(): () => void;
  /** Stops every adapter (waits for background lookups). */
  stop(): Promise<void>;
}

/** A linked account as the tests use it: the channel and account id, fixed test credentials, any member overridden. */
export function testLink(channel: string, accountId: string, overrides: Partial<SocialLink> = {}): SocialLink {
  return {
    channel, accountId, accessToken: 'EAAGtestaccesstoken0000000000', appSecret: 'test-app-secret-0123456789abcdef',
    verifyToken: `verify-token-${channel}-1234`, linkedAt: 1_700_000_000_000, ...overrides,
  };
}

/** An instance record with defaults and the given social links. */
export function testInstance(id: string, links: SocialLink[]): InstanceRecord {
  return {
    id, key: `key-${id}`, name: id, driver: 'sandbox', createdAt: 0, flags: defaultInstanceFlags(),
    webhook: defaultWebhookSettings(), webhookSecret: `whsec_${id}`, user: null, phoneConnected: false,
    wantsConnection: false, health: 'healthy', driverOptions: {},
    links: Object.fromEntries(links.map((link) => [link.channel, link])),
  };
}

/** A logger that records what it is given. */
export function capturingLogger(into: unknown[]): Logger {
  const record = (obj: unknown, msg?: string): void => {
    into.push(obj, msg);
  };
  const logger: Logger = {
    child: () => logger, trace: () => {}, debug: () => {}, info: () => {}, warn: record, error: record, fatal: record,
  };
  return logger;
}

/**
 * Wires `driver` to `storage` and `instances` the way the server does: one adapter per instance,
 * created on first use with a context whose `emit` captures payloads, and the server's index of
 * linked accounts (`@parley/core`'s LinkedAccountIndex, in `storage.state`) holding the instances' links.
 */
export function createDriverHarness(driver: ChannelDriver, storage: Storage, instances: InstanceRecord[], logged: unknown[] = []): DriverHarness {
  const emitted: ChannelEventPayload[] = [];
  const emitters: string[] = [];
  const adapters = new Map<string, Promise<ChannelAdapter>>();
  const logger = capturingLogger(logged);
  let held: Promise<void> | undefined;
  const index = new LinkedAccountIndex(storage.state, { get: async (id) => instances.find((instance) => instance.id === id) ?? null });
  const indexed = (async () => {
    for (const record of instances) for (const link of Object.values(record.links)) if (link) await index.add(record.id, link);
  })();

  async function adapter(instanceId: string): Promise<ChannelAdapter> {
    const record = instances.find((instance) => instance.id === instanceId);
    if (!record || !record.links[driver.channel as keyof InstanceRecord['links']]) throw new NotFoundError(`instance ${instanceId}`);
    let created = adapters.get(instanceId);
    if (!created) {
      created = Promise.resolve(driver.create({
        instanceId, instance: async () => record, storage, logger,
        settled: async () => held,
        emit: (payload) => {
          emitted.push(payload);
          emitters.push(instanceId);
        },
      }));
      adapters.set(instanceId, created);
    }
    return created;
  }

  function route(method: 'get' | 'post') {
    const found = driver.routes?.find((candidate) => candidate.method === method && candidate.path === '/webhook');
    if (!found) throw new Error(`driver ${driver.name} has no ${method.toUpperCase()} /webhook route`);
    return found;
  }

  const base = {
    params: {}, adapter,
    ingest: async (instanceId: string, payload: unknown) => ingestInto(await adapter(instanceId), instanceId, payload),
    async linkedAccount(channel: string, accountId: string) {
      await indexed;
      return index.find(channel, accountId);
    },
    async hasVerifyToken(channel: string, token: string) {
      await indexed;
      return index.hasVerifyToken(channel, token);
    },
    instanceByKey: async (key: string) => {
      const record = instances.find((instance) => instance.key === key);
      if (!record) throw new NotFoundError('instance');
      return record;
    },
  };

  return {
    emitted,
    emitters,
    logged,
    adapter,
    verify: (query) => route('get').handler({ ...base, query, headers: {}, body: undefined }),
    notify: (rawBody, headers) => route('post').handler({ ...base, query: {}, headers, body: undefined, rawBody }),
    holdSettled() {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    async stop() {
      await Promise.all([...adapters.values()].map(async (created) => (await created).stop()));
    },
  };
}
