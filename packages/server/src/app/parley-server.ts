import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { Request, Response } from 'express';
import type { AddressInfo } from 'node:net';
import { container as rootContainer } from 'tsyringe';
import { systemClock, Tokens, type Clock, type HostSettings, type InstanceRecord, type Logger, type PluginEventSubscriber } from '@parley/core';
import { privateDir } from '@parley/host';
import { offerUnowned, registryHost, type ClusterRuntime } from '../cluster/cluster-setup.js';
import { EventFanIn } from '../cluster/event-fan-in.js';
import { NodeEvents } from '../cluster/node-events.js';
import type { ParleyConfig } from '../config/config.js';
import { EventLogRetention } from '../events/event-log-retention.js';
import type { SubscriberFeeds } from '../events/subscriber-feeds.js';
import { driverRoutes } from '../http/driver-routes.js';
import { FailureLimiter } from '../http/failure-limiter.js';
import { OpenRequests } from '../http/open-requests.js';
import { findDashboard, type DashboardFiles } from '../http/dashboard.js';
import { findDocs, type DocsFiles } from '../http/guides.js';
import { createHttpApp } from '../http/http-app.js';
import { ANSWERED } from '../http/router.js';
import { DEFAULT_IDEMPOTENCY_TIMINGS, IdempotencyGuard } from '../http/idempotency.js';
import type { RouteDefinition, RouteAuth } from '../http/route.js';
import { instanceNotFound } from '../instances/instance-runtime.js';
import { upgradeLegacyRecords } from '../instances/legacy-records.js';
import { createLogger } from '../logging/logger.js';
import { McpSurface } from '../mcp/mcp-surface.js';
import { HostContainer } from '../plugins/host-container.js';
import { loadPlugins, type ModuleImporter } from '../plugins/plugin-host.js';
import { allRoutes } from '../routes/index.js';
import { backfillUniqueClaims } from '../services/unique-options.js';
import { StreamHub } from '../streams/stream-hub.js';
import { StreamRenderer } from '../streams/stream-renderer.js';
import { streamUpgradeHandler } from '../streams/ws-upgrade.js';
import { AdminToken, instanceBearer, metricsVerifier } from './admin-token.js';
import { credentialVerifier } from './credential.js';
import { registerServerServices } from './host-services.js';
import { ServerPresence } from '../presence/server-presence.js';
import { ServerTokens } from './server-tokens.js';
import type { ServerContext } from './server-context.js';
import { settledWithin, ShutdownBudget } from './shutdown-budget.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Options of {@link ParleyServer.create}. */
export interface ServerOptions {
  config: ParleyConfig;
  /** Defaults to a pino logger at `config.logLevel`. */
  logger?: Logger;
  clock?: Clock;
  /** The dashboard files served at `/dashboard`: by default the build of `@parley/dashboard` ({@link findDashboard}). */
  dashboard?: DashboardFiles;
  /** The repository's `docs/`, rendered under `/docs/guides`: by default found above the server's modules ({@link findDocs}). */
  docs?: DocsFiles;
  /** Imports the plugins named by package (see {@link ModuleImporter}): a distribution passes its own `import`. */
  importModule?: ModuleImporter;
}

/**
 * The composition root: loads the plugins into a container, initialises storage, wires the event
 * bus, the instance registry, the webhook engine and the HTTP API, and owns start-up and graceful
 * shutdown.
 */
export class ParleyServer {
  private server?: Server;
  private shuttingDown = false;
  private restoring?: Promise<void>;
  private closed?: Promise<void>;
  private readonly openRequests = new OpenRequests();

  private constructor(
    readonly context: ServerContext,
    readonly adminToken: AdminToken,
    readonly routes: RouteDefinition[],
    readonly openapi: Record<string, unknown>,
    private readonly http: ReturnType<typeof createHttpApp>,
    private readonly retention: EventLogRetention,
    private readonly upgrade: ReturnType<typeof streamUpgradeHandler>,
    /** The in-process event subscribers of `extension` plugins and their feeds. */
    private readonly extensions: { feeds: SubscriberFeeds; subscribers: PluginEventSubscriber[] },
    /** The MCP server at `/mcp`, unless `mcp.enabled` is false. */
    readonly mcp: McpSurface | undefined,
    /** This server's presence record, which `parley storage copy` reads (docs/storage.md). */
    private readonly presence: ServerPresence,
    private readonly cluster?: ClusterRuntime,
  ) {}

  /**
   * Answers the server gave with a status their route does not declare (`METHOD /route status`),
   * which the OpenAPI document therefore does not list. Empty unless there is a bug.
   */
  undeclaredAnswers(): string[] {
    return this.http.undeclared.list();
  }

  /** The dashboard files served at `/dashboard`, or why none are. */
  get dashboard(): DashboardFiles {
    return this.http.dashboard;
  }

  /** Every route the HTTP app really serves, as `METHOD /template` (the OpenAPI completeness test compares it with the document). */
  servedRoutes(): string[] {
    return this.http.table.list();
  }

  /** Builds everything; nothing listens yet. Throws on bad plugins or unreachable storage. */
  static async create(options: ServerOptions): Promise<ParleyServer> {
    const { config } = options;
    const logger = options.logger ?? (createLogger({ level: config.logLevel, format: config.logFormat }) as unknown as Logger);
    const clock = options.clock ?? systemClock;
    // The data directory holds keys, sessions and the admin token: only its owner may enter it.
    const dataDirMode = privateDir(config.dataDir);
    if (dataDirMode === 'tightened') logger.warn({ dataDir: config.dataDir }, 'data directory was open to other users: permissions tightened to 0700');
    if (dataDirMode === 'shared') {
      logger.warn({ dataDir: config.dataDir }, 'data directory is shared with other users (sticky bit, file-system root or another owner) and left as it is; its files are still 0600, but give Parley a directory of its own');
    }
    const adminToken = AdminToken.load(config.dataDir, config.adminToken, logger);
    const host: HostSettings = {
      dataDir: config.dataDir,
      publicUrl: (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/$/, ''),
      allowPrivateUrls: config.allowPrivateUrls,
      allowPrivateProxies: config.allowPrivateProxies,
      media: { ...config.media },
    };
    // The container: the host's services are registered as factories and resolved below, in start-up order.
    const services = new HostContainer(rootContainer.createChildContainer());
    services.value(Tokens.Logger, logger);
    services.value(Tokens.HostSettings, host);
    services.value(Tokens.Clock, clock);
    services.value(ServerTokens.Config, config);
    registerServerServices(services);
    const plugins = await loadPlugins(config.plugins, { container: services, logger, host, clock, baseDir: config.baseDir, importModule: options.importModule });
    services.value(ServerTokens.Plugins, plugins);
    const metrics = services.resolve(ServerTokens.Metrics);
    const cluster = services.resolve(ServerTokens.Cluster);
    const storage = services.resolve(ServerTokens.Data);
    await storage.init();
    const presence = new ServerPresence(storage.state, clock, logger.child({ component: 'presence' }), { version: VERSION, ...(cluster ? { node: cluster.node.id } : {}) });
    await cluster?.node.join();
    await backfillUniqueClaims(storage, plugins.drivers, clock, logger);

    const registry = services.resolve(ServerTokens.Registry);
    const webhooks = services.resolve(ServerTokens.Webhooks);
    const retention = new EventLogRetention(storage.events, clock, config.streams.retentionSeconds * 1000, logger.child({ component: 'event-log' }));
    const bus = services.resolve(ServerTokens.Bus);
    const streams = new StreamHub({
      bus, log: storage.events, renderer: new StreamRenderer(webhooks), record: (id) => storage.instances.get(id), config: config.streams, clock,
      logger: logger.child({ component: 'streams' }), observer: metrics,
      // A cluster node's admin stream replays once the other nodes publish their events to it.
      adminReady: () => cluster?.fanIn?.watching() ?? Promise.resolve(),
    });
    metrics.bind({ storage, loaded: () => registry.loaded(), streams: () => streams.count() });
    const signals = storage.signals?.();
    if (cluster && signals) {
      const self = cluster.node.id;
      cluster.fanIn = new EventFanIn({
        nodeId: self, signals, bus, hub: streams, record: (id) => storage.instances.get(id), clock, logger: logger.child({ component: 'cluster' }),
        peers: async () => (await cluster.node.refreshNodes()).filter((n) => n.alive && n.id !== self).map((n) => n.id),
      });
      const nodeEvents = new NodeEvents({
        signals, store: cluster.node.store, hub: streams, clock, logger: logger.child({ component: 'cluster' }), claimTtlMs: 2 * cluster.node.config.deadNodeRetentionMs,
      });
      cluster.nodeEvents = nodeEvents;
      cluster.node.watchNodes = (nodes) => nodeEvents.seen(nodes);
    }
    // Before anything listens: inbound webhooks find their instance through this index.
    if (await registry.linkedAccounts.buildOnce(() => storage.instances.list())) logger.debug('index of linked accounts built');
    // The plugins needing composed services (the channels, the send path) register now: they add event subscribers.
    await plugins.registerComposed();
    const context: ServerContext = {
      config, host, logger, clock, storage, registry, bus, drivers: plugins.drivers, formats: plugins.formats, externalDatabase: plugins.externalDatabase,
      version: VERSION, media: services.resolve(ServerTokens.Media), webhooks, metrics, streams, cluster: cluster?.node, clusterRouter: cluster?.router,
      sends: services.resolve(ServerTokens.Pipeline),
      outbound: {
        queue: services.resolve(ServerTokens.Queue), worker: services.resolve(ServerTokens.Worker),
        policies: services.resolve(ServerTokens.Policies), pacer: services.resolve(ServerTokens.Pacer),
      },
      restorer: services.resolve(ServerTokens.Restorer),
    };
    const extensions = { feeds: services.resolve(ServerTokens.Subscribers), subscribers: [...plugins.subscribers.values()] };

    let server: ParleyServer | undefined;
    // Tools derive from the final routes (bounds applied) and call the server where it listens.
    const mcp = config.mcp.enabled ? new McpSurface(context, () => http.routes, () => server!.url, cluster?.fanIn) : undefined;
    const routes = [
      ...allRoutes(context, () => server?.shuttingDown ?? false),
      ...[...plugins.drivers.values()].flatMap((d) => driverRoutes(context, d)),
      ...(mcp?.routes() ?? []),
    ];
    const resolveScope = async (auth: RouteAuth, req: Request, res: Response) => {
      // Admin requests are authenticated before they are forwarded: the owner's failure limiter never counts a node's address.
      if (auth === 'admin') adminToken.verify(req.headers.authorization);
      // The key of a bearer route is where a keyed path has it, so that a cluster node forwards it to the instance's owner.
      if (auth === 'bearer') req.params.key = instanceBearer(req.headers.authorization, req.query.access_token);
      // An MCP credential too, before its session's requests are forwarded to the node holding the session.
      const principal = auth === 'credential' ? await verifyCredential(req.headers.authorization) : undefined;
      if (cluster && (await cluster.router.route(req, res))) return ANSWERED;
      // A public route under a key (the sandbox's `/sandbox/{key}/…`) is refused here too for an unknown
      // key, before its body is read; its handler finds the instance loaded.
      if (auth === 'instance' || auth === 'bearer' || (auth === 'public' && typeof req.params.key === 'string')) return registry.byKey(req.params.key as string);
      if (auth === 'metrics') verifyMetrics(req.headers.authorization as string | undefined);
      if (auth === 'credential') return principal;
      return undefined;
    };
    const verifyCredential = credentialVerifier(adminToken, (key) => storage.instances.findByKey(key));
    const verifyMetrics = metricsVerifier(adminToken, config.metrics.token);
    // Counted in the storage when it offers a shared counter (Redis: every server counts together).
    const limiter = new FailureLimiter(config.rateLimit, logger.child({ component: 'rate-limit' }),
      plugins.storage.rateLimiter?.(FailureLimiter.options(config.rateLimit)));
    const http = createHttpApp({
      routes, resolveScope: resolveScope as never, logger, version: VERSION, limiter, trustProxy: config.trustProxy,
      bodyLimitBytes: config.bodyLimitBytes, mediaBodyLimitBytes: config.mediaBodyLimitBytes, publicBodies: config.publicBodies,
      isShuttingDown: () => server?.shuttingDown ?? false,
      durable: () => storage.flush(),
      idempotency: new IdempotencyGuard(storage.idempotency, clock, DEFAULT_IDEMPOTENCY_TIMINGS, cluster?.node.keyHolders()),
      metrics,
      dashboard: options.dashboard ?? findDashboard(),
      docs: options.docs ?? findDocs(),
    });
    const upgrade = streamUpgradeHandler({
      hub: streams, formats: new Set(plugins.formats.keys()), limiter, isShuttingDown: () => server?.shuttingDown ?? false, logger,
      // What express's req.ip answers for the same request: the address behind trusted proxies.
      clientAddress: (req) => proxyaddr(req, http.app.get('trust proxy fn') as (address: string, hop: number) => boolean),
      authenticate: async (key, authorization) => {
        if (key === undefined) {
          adminToken.verify(authorization);
          return undefined;
        }
        // A cluster node finds the instance in storage: it may run on another node, where the upgrade goes.
        if (!cluster) return (await registry.byKey(key)).id;
        const id = await cluster.router.instanceId(key);
        if (!id) throw instanceNotFound();
        return id;
      },
      ...(cluster ? { relay: (instance, req, socket, head) => cluster.router.routeUpgrade(instance, req, socket, head) } : {}),
    });
    server = new ParleyServer(context, adminToken, http.routes, http.openapi, http, retention, upgrade, extensions, mcp, presence, cluster);
    return server;
  }

  /** Listens, starts webhook delivery and restores connected instances in the background. Answers the base URL. */
  async listen(): Promise<string> {
    const { config, logger } = this.context;
    // First: `parley storage copy` refuses a store a server holds (docs/storage.md).
    await this.presence.start();
    // Before anything listens: no client resumes into entries past the retention.
    await this.retention.start();
    // Before any event: each subscriber catches up from its cursor, then follows the bus.
    await this.extensions.feeds.start(this.extensions.subscribers);
    const server = createServer(this.http.app);
    this.server = server;
    server.keepAliveTimeout = 65_000;
    // Once closing, a keep-alive connection whose request is answered is closed (Node leaves it open, and
    // the stop would wait for it until shutdownTimeoutMs).
    this.openRequests.track(server);
    server.on('request', (_req, res: ServerResponse) => res.once('finish', () => {
      if (!server.listening) setImmediate(() => server.closeIdleConnections());
    }));
    this.server.on('upgrade', this.upgrade);
    // Before anything listens: an admin stream opened at once gets the other nodes' events.
    await this.cluster?.fanIn?.start();
    await this.cluster?.nodeEvents?.start();
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(config.port, config.host, () => resolve());
    });
    // Port 0 (tests, benchmarks) is known only now: links in webhooks must name the real port.
    if (!config.publicUrl && config.port === 0) this.context.host.publicUrl = this.url;
    await this.presence.listening(this.url);
    this.context.webhooks.start();
    if (this.context.outbound.queue) this.context.outbound.worker.start();
    const { registry, storage, restorer } = this.context;
    const { queue, worker } = this.context.outbound;
    const streams = { written: () => this.context.webhooks.written().then(() => storage.flush()), endInstance: (id: string) => this.context.streams.endInstance(id) };
    this.cluster?.node.start(registryHost(registry, storage, restorer, this.cluster.node, logger.child({ component: 'cluster' }), streams, queue ? worker : undefined));
    this.restoring = this.restoreInstances().catch((err: unknown) => logger.error({ err }, 'restoring instances failed'));
    return this.url;
  }

  /** Base URL the server listens on (loopback form for wildcard hosts). */
  get url(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('not listening');
    const host = ['0.0.0.0', '::'].includes(address.address) ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  /** Resolves when the start-up restore has finished (tests wait on it). */
  restored(): Promise<void> {
    return this.restoring ?? Promise.resolve();
  }

  /**
   * Reconnects every instance that was connected before the restart, through the restorer: bounded
   * concurrency, a rate per channel, pending work first.
   */
  private async restoreInstances(): Promise<void> {
    const { storage, logger } = this.context;
    const all = await upgradeLegacyRecords(await storage.instances.list(), storage.instances);
    await this.reattachExternalDatabases(all);
    // A cluster node restores nothing itself: the nodes' loops share the instances out (docs/cluster.md).
    if (this.cluster) return offerUnowned(this.cluster.node, all);
    const records = all.filter((r) => r.wantsConnection);
    const started = performance.now();
    const summary = await this.context.restorer.restoreRecords(records);
    logger.info({ ...summary, ms: Math.round(performance.now() - started) }, 'instances restored');
  }

  /** Reconnects the external databases of instances that have one (their history lives there). */
  private async reattachExternalDatabases(records: InstanceRecord[]): Promise<void> {
    const { storage, externalDatabase: connector, logger } = this.context;
    const bound = records.filter((r) => r.externalDatabase);
    for (const r of bound) storage.expect(r.id);
    await Promise.all(bound.map(async (r) => {
      const { kind, ...database } = r.externalDatabase!;
      if (connector?.kind !== kind) {
        logger.error({ instance: r.id, kind }, `instance has an external database of kind "${kind}" but no plugin provides that connector`);
        return;
      }
      try {
        await storage.attach(r.id, await connector.connect(database));
      } catch (err) {
        logger.error({ err, instance: r.id }, 'external database could not be reconnected; its history answers 503 until it is attached again');
      }
    }));
  }

  /**
   * Graceful shutdown, within `shutdownTimeoutMs` from the call ({@link ShutdownBudget}: its steps over
   * a little before, for the process to exit): refuse new requests, end the event streams, let in-flight
   * ones finish (until the deadline), stop channels, drain events into the durable queue (those held by a
   * storage outage given up with the first steps' time) and stop delivery while the drivers close, close
   * storage (each wait bounded by what is left). Idempotent.
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      const { registry, bus, webhooks, storage, config, logger } = this.context;
      const budget = new ShutdownBudget(config.shutdownTimeoutMs);
      // Events held by a storage outage are waited for, from the stop request, as long as the stop's last
      // steps leave room for (a try in flight then is not waited for), then given up.
      bus.stopWaiting(budget.leftForFirstSteps());
      // A cluster node hands its instances over first, still forwarding their requests to the new owners
      // (its restore only offered instances to the cluster: it is over at once); its store calls end by then too.
      if (this.cluster) {
        await this.restoring;
        await this.cluster.node.close(() => budget.leftForFirstSteps());
        // Not waited for: a stop with Redis unreachable must not wait for the storage's command time-out.
        void this.cluster.nodeEvents?.left(this.cluster.node.info);
      }
      this.shuttingDown = true;
      this.context.restorer.stop();
      // Streams never go idle: they are ended first, so that the open connections can close.
      this.context.streams.close();
      await this.mcp?.close();
      this.cluster?.upgrades.close();
      this.retention.stop();
      if (this.server) {
        const server = this.server;
        const done = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        this.openRequests.closeUnused();
        const timer = setTimeout(() => {
          if (this.openRequests.size) logger.warn(`connections open after shutdownTimeoutMs closed: ${this.openRequests.describe()}`);
          server.closeAllConnections();
        }, budget.left());
        await done;
        clearTimeout(timer);
      }
      await this.restoring;
      // Sends in flight finish (or stay leased, to be taken up after the restart) before channels stop.
      await this.context.outbound.worker.stop();
      await registry.close();
      // Alongside the steps below (a driver may be finishing writes its instances' stops left under way), awaited before storage closes.
      const drivers = registry.closeDrivers(budget.spent);
      await bus.drain();
      const delivery = (async () => {
        // What the subscribers were not handed yet they read from the event log after the restart.
        await this.extensions.feeds.stop();
        await webhooks.stop();
        await this.cluster?.fanIn?.stop();
        await this.cluster?.nodeEvents?.stop();
        await this.cluster?.forwarder.close();
      })();
      // Their last store calls wait for its command time-out on a silent store: not past the stop's time.
      if (await settledWithin(delivery, budget.left())) await delivery;
      else logger.warn(`event delivery not stopped within shutdownTimeoutMs (${config.shutdownTimeoutMs} ms): what it had not recorded is delivered again after the restart`);
      await this.presence.stop(budget.left());
      await drivers;
      // A store whose link drops every packet holds its close until its command time-out: not past the stop's time.
      const closing = storage.close();
      if (await settledWithin(closing, budget.left())) await closing;
      else logger.warn(`storage not closed within shutdownTimeoutMs (${config.shutdownTimeoutMs} ms): its connections end with the process`);
      logger.info('shutdown complete');
    })();
    return this.closed;
  }
}
