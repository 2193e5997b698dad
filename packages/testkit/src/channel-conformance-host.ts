import {
  LinkedAccountIndex, NotFoundError, restStatusOf, ingestInto,
  type ChannelAdapter, type ChannelContext, type ChannelEventPayload, type Logger, type MediaLimits, type MessageRecord,
} from '@parley/core';
import type { ChannelConformanceHarness, ChannelFarSide, ConformanceHost, RouteCall } from './channel-conformance-harness.js';

const silent: Logger = { child: () => silent, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };

/** How long {@link ConformanceHost.waitFor} waits: the far sides deliver on loopback or in-process. */
const WAIT_MS = 5_000;

/** A wired run: the host the far side sees, plus what only the suite does (send projection, restart, teardown). */
export interface ConformanceRun {
  host: ConformanceHost;
  farSide: ChannelFarSide;
  /** Stores a sent record as the server's send path does (never moving a stored status backwards). */
  storeSent(record: MessageRecord): Promise<void>;
  /** Stops the adapter and creates a new one from the driver over the same storage and record, as a server restart does. */
  restart(): Promise<void>;
  /** Waits until the event queue of the projection is drained. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts one run: stores the instance, indexes its links, creates the adapter with a context whose
 * `emit` records each payload and projects messages and statuses onto storage as the server's store
 * projector does (so stored statuses can be checked), and builds the far side.
 */
export async function startRun(harness: ChannelConformanceHarness, options?: { media?: MediaLimits }): Promise<ConformanceRun> {
  const { driver, storage, instance, farSide: buildFarSide } = await harness.start(options);
  await storage.instances.create(instance);
  const index = new LinkedAccountIndex(storage.state, storage.instances);
  for (const link of Object.values(instance.links)) if (link) await index.add(instance.id, link);

  const events: ChannelEventPayload[] = [];
  const waiters = new Set<() => void>();
  let projection: Promise<void> = Promise.resolve();
  const project = async (payload: ChannelEventPayload): Promise<void> => {
    if (payload.type === 'message') await upsertForward(payload.message.record);
    else if (payload.type === 'message.status' && payload.messageId && !payload.participant) {
      await storage.messages.setStatus(instance.id, payload.messageId, restStatusOf(payload.status));
    }
  };
  const upsertForward = async (record: MessageRecord): Promise<void> => {
    const existing = await storage.messages.get(instance.id, record.key.id);
    await storage.messages.upsert(instance.id, existing ? { ...record, status: existing.status } : record);
    if (existing) await storage.messages.setStatus(instance.id, record.key.id, record.status);
  };
  const context: ChannelContext = {
    instanceId: instance.id,
    instance: async () => {
      const record = await storage.instances.get(instance.id);
      if (!record) throw new NotFoundError(`instance ${instance.id}`);
      return record;
    },
    emit: (payload) => {
      events.push(payload);
      projection = projection.then(() => project(payload)).then(() => { for (const wake of waiters) wake(); });
    },
    // As the server's: resolves once every payload emitted so far is projected onto storage.
    settled: () => projection,
    storage,
    logger: silent,
  };
  let adapter: ChannelAdapter = await driver.create(context);

  const host: ConformanceHost = {
    driver, storage, events,
    instance: context.instance,
    adapter: () => adapter,
    async route(method, path, call: RouteCall = {}) {
      const found = driver.routes?.find((route) => route.method === method && route.path === path);
      if (!found) throw new Error(`driver ${driver.name} has no route ${method.toUpperCase()} ${path}`);
      return found.handler({
        params: call.params ?? {}, query: call.query ?? {}, headers: call.headers ?? {}, body: call.body, ...(call.rawBody ? { rawBody: call.rawBody } : {}),
        adapter: async (instanceId) => {
          if (instanceId !== instance.id) throw new NotFoundError(`instance ${instanceId}`);
          return adapter;
        },
        ingest: async (instanceId, payload) => {
          if (instanceId !== instance.id) throw new NotFoundError(`instance ${instanceId}`);
          return ingestInto(adapter, instanceId, payload);
        },
        instanceByKey: async (key) => {
          const record = await context.instance();
          if (record.key !== key) throw new NotFoundError('instance');
          return record;
        },
        linkedAccount: (channel, accountId) => index.find(channel, accountId),
        hasVerifyToken: (channel, token) => index.hasVerifyToken(channel, token),
      });
    },
    waitFor(what, match) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = events.find(match);
          if (!found) return false;
          waiters.delete(check);
          clearTimeout(timer);
          // Resolve once the projection of the payload ran, so storage already shows it.
          projection.then(() => resolve(found), reject);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out after ${WAIT_MS} ms waiting for ${what}; emitted: ${events.map((e) => e.type).join(', ') || 'nothing'}`));
        }, WAIT_MS);
        if (!check()) waiters.add(check);
      });
    },
  };
  const farSide = await buildFarSide(host);

  return {
    host, farSide,
    storeSent: (record) => upsertForward(record),
    async restart() {
      await adapter.stop();
      await projection;
      adapter = await driver.create(context);
    },
    settled: () => projection,
    async close() {
      try {
        await farSide.close?.();
        await adapter.stop();
        // No deadline: a test host waits for whatever the driver finishes.
        await driver.close?.(new AbortController().signal);
        await projection;
      } finally {
        await storage.close();
      }
    },
  };
}
