import { timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Request, Response } from 'express';
import {
  isParleyError, LogThrottle, OutcomeUnknownError, ServiceUnavailableError, UnauthorizedError, type InstanceRepository, type Logger, type NodeRecord,
} from '@parley/core';
import type { PrereadRequest } from '../http/json-body.js';
import type { MatchedRequest } from '../http/router.js';
import type { ClusterNode } from './cluster-node.js';
import { InstanceMovingError } from './instance-moving.js';
import type { Attempt } from './answer-relay.js';
import type { ClusterObserver } from './cluster-observer.js';
import { FORWARD_KEY_HEADER, FORWARDED_BY_HEADER, INGEST_FOR_HEADER, prepareBody, SECRET_HEADER, type ForwardBody, type Forwarder } from './forwarder.js';
import type { UpgradeForwarder } from './upgrade-forwarder.js';
import { leastLoaded } from './placement.js';
import { sessionHolder } from './session-affinity.js';

/** Pause between attempts to reach an instance's owner during a handover: grows from 50 ms to 1 s. */
const RETRY_BASE_MS = 50;
const RETRY_CAP_MS = 1000;
/** Key → instance id answers remembered (keys never change; a deleted instance's key finds nothing at the owner). */
const KEY_CACHE = 50_000;
/**
 * How long an instance's owner, read from its lease, is trusted without reading it again. A stale
 * answer costs one attempt: the old owner refuses the request (503 `instance_moving`, or the
 * connection fails) and the owner is read again.
 */
const OWNER_CACHE_MS = 1_000;
/** Owners remembered at most (the cache starts over past it). */
const OWNER_CACHE_ENTRIES = 50_000;

/** Refused forwarded requests are logged at most once per this period (a flood of forged ones must not flood the log). */
const REFUSAL_LOG_MS = 1000;

/** The route of an instance's event stream (Server-Sent Events). */
const EVENTS_ROUTE = '/:key/events';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Methods that change nothing: sending one again cannot do anything twice. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Decides where a request is served: here when this node owns the instance (or is where a new or
 * orphaned instance goes), else at the owner, forwarded. During a handover (owner gone, shutting
 * down or moving the instance) it waits for the new owner up to `handoverWaitMs`, then answers 503.
 * Requests forwarded by another node must carry the cluster secret (401 otherwise, logged).
 */
export class ClusterRouter {
  private readonly ids = new Map<string, string>();
  /** Owners read from leases lately ({@link OWNER_CACHE_MS}), by instance id. */
  private readonly owners = new Map<string, { node: string; until: number }>();
  private readonly secretDigest: Buffer;
  private readonly refusals = new LogThrottle(REFUSAL_LOG_MS);

  constructor(
    private readonly node: ClusterNode,
    private readonly forwarder: Forwarder,
    private readonly upgrades: UpgradeForwarder,
    private readonly instances: InstanceRepository,
    private readonly logger: Logger,
    private readonly observer: ClusterObserver,
  ) {
    this.secretDigest = digest(node.config.secret);
  }

  /** Answers true when the request was answered (forwarded); false when this node serves it. */
  async route(req: Request, res: Response): Promise<boolean> {
    const forwarded = req.headers[FORWARDED_BY_HEADER] !== undefined;
    if (forwarded) this.acceptPeer(req);
    else if (req.method === 'POST' && req.path === '/admin/instances') return this.placeNew(req, res);
    else if (typeof req.params.node === 'string' && req.params.node !== this.node.id) return this.toNode(req.params.node, req, res);
    else {
      const holder = sessionHolder(req);
      if (holder !== undefined && holder !== this.node.id) return this.toNode(holder, req, res);
    }
    const keyOrId = req.params.key as string | undefined;
    const id = keyOrId ? await this.instanceId(keyOrId) : undefined;
    if (!id) return false;
    if (!forwarded) {
      if (await this.toOwner(id, req, res)) return true;
    } else {
      // Served here (a forwarded request is never forwarded again) if this node owns the instance or can take it, once it is
      // started; otherwise 503 instance_moving, which the forwarding node retries.
      if (!this.node.leases.has(id)) await this.node.claim(id);
      if (!(await this.node.started(id))) throw new InstanceMovingError(id);
    }
    // Served here: a graceful hand-over of the instance waits until the answer is out. Not for an event
    // stream, which never ends by itself: the hand-over ends it, and its client resumes at the new owner.
    if ((req as MatchedRequest).parleyRoute !== EVENTS_ROUTE) this.node.serving(id, (done) => res.once('close', done));
    return false;
  }

  /** Checks a forwarded request's secret; its internal idempotency key, if any, is then honoured. */
  private acceptPeer(req: Request): void {
    this.verifyPeer(req);
    const key = req.headers[FORWARD_KEY_HEADER];
    if (typeof key === 'string' && key.length > 0) (req as MatchedRequest).parleyForwardKey = key;
  }

  /**
   * Refuses a forwarded request without the right secret (401, logged with the claimed node and the
   * client address, at most once per {@link REFUSAL_LOG_MS} with the number of refusals the line stands for).
   */
  private verifyPeer(req: IncomingMessage): void {
    const given = req.headers[SECRET_HEADER];
    if (typeof given === 'string' && timingSafeEqual(digest(given), this.secretDigest)) return;
    // The route's template, never the path: it may carry an instance key.
    const route = (req as MatchedRequest).parleyRoute ?? 'WebSocket /:key/events';
    const line = { from: req.headers[FORWARDED_BY_HEADER], address: (req as Request).ip ?? req.socket.remoteAddress, route };
    // `refused`: how many refusals the line stands for (the details are the latest one's).
    this.refusals.note((refused) => this.logger.warn({ ...line, refused }, 'forwarded request refused: wrong or missing cluster secret'));
    this.observer.peerRefused();
    throw new UnauthorizedError('invalid cluster secret');
  }

  /**
   * A new instance is created on the least-loaded node; here when that is this node, or when it could not
   * be reached (the request provably not written to it), or when the connection broke after it was: the
   * request then runs here under the internal key it carried there, so it creates one instance at most.
   */
  private async placeNew(req: Request, res: Response): Promise<boolean> {
    const target = leastLoaded(await this.node.refreshNodes());
    if (!target || target.id === this.node.id) return false;
    const body = await prepareBody(req);
    const attempt = await this.forwarder.forward(target.address, req, res, body);
    if (attempt === 'answered') return true;
    if (attempt === 'unknown') this.replayOrFail(req, body, 'connection_lost');
    restoreBody(req, body);
    return false;
  }

  /**
   * A request about another node (`/admin/cluster/nodes/{node}/…`), or of an MCP session another node
   * holds (its id names the node), is answered by that node; an unknown or dead one, or one that could
   * not be reached, by this node's 404 (for a session: `mcp_session_not_found`, the client initializes
   * again); 502 `outcome_unknown` when the connection broke after a request that changes something was
   * written to it.
   */
  private async toNode(id: string, req: Request, res: Response): Promise<boolean> {
    const target = (await this.node.refreshNodes()).find((n) => n.id === id && n.alive);
    if (!target) return false;
    const body = await prepareBody(req);
    const attempt = await this.forwarder.forward(target.address, req, res, body);
    if (attempt === 'unknown' && !SAFE_METHODS.has(req.method)) throw outcomeUnknown('connection_lost');
    if (attempt === 'answered') return true;
    restoreBody(req, body);
    return false;
  }

  /**
   * Forwards to the instance's owner, trying again during a handover only what cannot run twice: an
   * attempt that provably did not reach the owner (`retry`), or, after one that may have (`unknown`), a
   * request that changes nothing or runs under an idempotency key. Anything else that may have reached
   * the owner is answered 502 `outcome_unknown`, never sent again; and once an attempt may have reached
   * it, running out of handover time is `outcome_unknown` too, not a 503 (which says nothing was done).
   */
  private async toOwner(id: string, req: Request, res: Response): Promise<boolean> {
    let body: ForwardBody | undefined;
    let reached: OutcomeUnknownReason | undefined;
    let outcome: 'here' | 'answered';
    try {
      outcome = await this.viaOwner(id, () => reached, async (target) => {
        body ??= await prepareBody(req);
        const abandon = new AbortController();
        const attempt = await this.attempt(id, target, req, res, body, abandon);
        if (attempt !== 'unknown') {
          // A streamed body is spent: it cannot be sent again.
          return attempt === 'retry' && body.kind === 'stream' ? 'spent' : attempt;
        }
        const reason = abandon.signal.aborted ? 'owner_unresponsive' : 'connection_lost';
        this.replayOrFail(req, body, reason);
        if (!SAFE_METHODS.has(req.method)) reached = reason;
        return 'retry';
      });
    } catch (err) {
      // A failure after an attempt may have reached the owner (storage failing while the owner is looked up again).
      if (reached && isParleyError(err) && err.status === 503) throw outcomeUnknown(reached);
      throw err;
    }
    return outcome === 'here' ? local(req, body) : true;
  }

  /**
   * Returns when the request, which may have reached its target, can be sent again without running
   * twice (it changes nothing, or it runs under an idempotency key: the client's or the internal one it
   * was forwarded with, so the owner answers a second attempt with the first one's result); else throws
   * 502 `outcome_unknown`. A streamed body was spent by the first attempt.
   */
  private replayOrFail(req: Request, body: ForwardBody, reason: OutcomeUnknownReason): void {
    if (body.kind === 'stream' || !(SAFE_METHODS.has(req.method) || (req as MatchedRequest).parleyIdempotent)) throw outcomeUnknown(reason);
  }

  /**
   * Serves a WebSocket upgrade of an instance's event stream: `false` when this node serves it (it
   * owns the instance, taking it when free; a forwarded upgrade must carry the cluster secret and is
   * never forwarded again), `true` once it was proxied to the owner, waiting for a new owner during a
   * handover as requests do.
   */
  async routeUpgrade(id: string, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<boolean> {
    if (req.headers[FORWARDED_BY_HEADER] !== undefined) {
      this.verifyPeer(req);
      if (!this.node.leases.has(id)) await this.node.claim(id);
      if (!(await this.node.started(id))) throw new InstanceMovingError(id);
      return false;
    }
    return (await this.viaOwner(id, noneReached, (target) => this.upgrades.forward(target.address, req, socket, head))) === 'answered';
  }

  /**
   * Ingests an inbound webhook's entry for an instance (the route checked the signature): here
   * (`local`) when this node owns the instance or takes it, else the signed request goes to the owner
   * with {@link INGEST_FOR_HEADER} naming the instance; the owner checks the signature again and
   * ingests only that instance's entries (a forwarded request answers 0 for every other instance).
   * Answers how many events the entry emitted; 503 when no owner answered in time.
   */
  async ingest(id: string, req: Request, raw: Buffer, local: () => Promise<number>): Promise<number> {
    const only = req.headers[INGEST_FOR_HEADER];
    // A forwarded request carried the cluster secret: route() checked it before the handler ran.
    if (req.headers[FORWARDED_BY_HEADER] !== undefined && only !== undefined) return only === id ? local() : 0;
    let received = 0;
    // Sent again whatever happened to an attempt: the owner's deduplication window drops what it already ingested.
    const outcome = await this.viaOwner(id, noneReached, async (target) => {
      const answer = await this.forwarder.send(target.address, req, raw, { [INGEST_FOR_HEADER]: id });
      if (answer === 'retry') return 'retry';
      if (answer.status !== 200) {
        this.logger.warn({ instance: id, owner: target.id, status: answer.status, answer: answer.text.slice(0, 300) }, 'the owner refused a forwarded webhook');
        throw new ServiceUnavailableError(`the cluster node owning instance ${id} could not take the webhook; retry`);
      }
      received = (JSON.parse(answer.text) as { received?: number }).received ?? 0;
      return 'answered';
    });
    return outcome === 'here' ? local() : received;
  }

  /**
   * Runs `send` against the instance's owner until one answers, waiting for a new owner during a
   * handover (pauses growing from 50 ms to 1 s, up to `handoverWaitMs`, then 503). Answers `here`
   * instead once this node owns the instance (held, or taken now because it is where the instance
   * goes) and has started it. `send` answers `spent` when it must not be tried again, and throws
   * {@link OutcomeUnknownError} for an attempt that may have run and must not be sent again; once
   * `reached` names why an earlier attempt may have run, running out of time is that 502, not a 503.
   * Each attempt's outcome is counted, and so is the time a request that did not succeed at once waited.
   */
  async viaOwner(id: string, reached: () => OutcomeUnknownReason | undefined, send: (target: NodeRecord) => Promise<Attempt | 'spent'>): Promise<'here' | 'answered'> {
    const began = performance.now();
    const deadline = began + this.node.config.handoverWaitMs;
    for (let attempt = 0; ; attempt++) {
      // Given up while its start ran (a move, a drain, a stop), the instance is not served here: route again.
      const target = this.node.leases.has(id) ? 'held' : await this.ownerAddress(id);
      if (target === 'held') {
        if (await this.node.started(id)) return this.waited('here', attempt, began);
      } else if (target === 'here') {
        // Taken here and started (reconnected) before the request runs; another node may have been faster.
        if ((await this.node.claim(id).then(() => true, () => false)) && (await this.node.started(id))) return this.waited('here', attempt, began);
      } else if (target !== 'wait') {
        const outcome = await send(target).catch((err: unknown) => {
          if (err instanceof OutcomeUnknownError) this.observer.forwarded('unknown');
          throw err;
        });
        this.observer.forwarded(outcome === 'answered' ? 'answered' : 'retry');
        if (outcome === 'answered') return this.waited(outcome, attempt, began);
        this.owners.delete(id);
        if (outcome === 'spent') break;
      }
      if (performance.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, Math.min(RETRY_BASE_MS * 2 ** attempt, RETRY_CAP_MS)));
      await this.node.refreshNodes().catch(() => undefined);
    }
    this.observer.handoverWaited((performance.now() - began) / 1000);
    const reason = reached();
    this.observer.forwarded(reason ? 'unknown' : 'unavailable');
    if (reason) throw outcomeUnknown(reason);
    throw new ServiceUnavailableError(`the cluster node owning instance ${id} did not answer within ${this.node.config.handoverWaitMs} ms; retry`);
  }

  /** Answers `where`, after counting how long the request waited for an owner if its first attempt did not reach one. */
  private waited<T>(where: T, attempt: number, began: number): T {
    if (attempt > 0) this.observer.handoverWaited((performance.now() - began) / 1000);
    return where;
  }

  /**
   * Forwards once; an attempt with a held body is abandoned (through `abandon`) when the target stops
   * holding the instance's lease before it answers (checked every renewal interval), so a paused or cut
   * off owner holds the request at most until its lease moves on. Such an owner refuses a request it had
   * not begun if it wakes (its lease deadline passed); one it had begun may have run, so the caller sends
   * it again only when that is safe.
   */
  private async attempt(id: string, target: NodeRecord, req: Request, res: Response, body: ForwardBody, abandon: AbortController): Promise<Attempt> {
    if (body.kind === 'stream') return this.forwarder.forward(target.address, req, res, body);
    const watch = setInterval(() => {
      this.node.store.owners([id]).then((owners) => {
        const lease = owners.get(id);
        if (lease && lease.node !== target.id) abandon.abort();
      }, () => undefined);
    }, this.node.config.renewIntervalMs);
    try {
      return await this.forwarder.forward(target.address, req, res, body, { signal: abandon.signal, answered: () => clearInterval(watch) });
    } finally {
      clearInterval(watch);
    }
  }

  /** Where the instance is served: a node, `here`, or `wait` (its owner is gone and its lease not yet expired). */
  private async ownerAddress(id: string): Promise<NodeRecord | 'here' | 'wait'> {
    const nodes = this.node.nodes();
    const owner = await this.ownerOf(id);
    if (owner) {
      if (owner === this.node.id) return 'wait';
      const record = nodes.find((n) => n.id === owner);
      return record?.alive ? record : 'wait';
    }
    const moveTo = await this.node.store.moveTarget(id);
    const draining = this.node.info.draining;
    const able = draining ? nodes.filter((n) => n.id !== this.node.id) : nodes;
    const target = able.find((n) => n.id === moveTo && n.alive && !n.draining) ?? leastLoaded(able);
    if (!target) return draining ? 'wait' : 'here';
    return target.id === this.node.id ? 'here' : target;
  }

  /** The node holding the instance's lease (remembered for {@link OWNER_CACHE_MS}), undefined when none does. */
  private async ownerOf(id: string): Promise<string | undefined> {
    const now = performance.now();
    const known = this.owners.get(id);
    if (known && known.until > now) return known.node;
    const lease = (await this.node.store.owners([id])).get(id);
    if (!lease) {
      this.owners.delete(id);
      return undefined;
    }
    if (this.owners.size >= OWNER_CACHE_ENTRIES) this.owners.clear();
    this.owners.set(id, { node: lease.node, until: now + OWNER_CACHE_MS });
    return lease.node;
  }

  /** The instance id of a key or id (read from storage, remembered), undefined when none has it. */
  async instanceId(keyOrId: string): Promise<string | undefined> {
    const cached = this.ids.get(keyOrId);
    if (cached) return cached;
    const record = keyOrId.startsWith('ins_') ? ((await this.instances.get(keyOrId)) ?? (await this.instances.findByKey(keyOrId))) : await this.instances.findByKey(keyOrId);
    if (!record) return undefined;
    if (this.ids.size >= KEY_CACHE) this.ids.clear();
    this.ids.set(keyOrId, record.id);
    return record.id;
  }
}

type OutcomeUnknownReason = 'connection_lost' | 'owner_unresponsive';

/** For requests whose every attempt may be sent again (upgrades, webhooks): none ever leaves the outcome unknown. */
const noneReached = (): undefined => undefined;

/** 502 `outcome_unknown`: a request that may have reached the owner, and cannot be sent again safely. */
function outcomeUnknown(reason: OutcomeUnknownReason): OutcomeUnknownError {
  const what = reason === 'connection_lost' ? 'the connection to the cluster node running this instance broke'
    : 'the cluster node running this instance stopped answering (another node has taken the instance over)';
  return new OutcomeUnknownError(`${what} after the request was sent to it; whether it was carried out is not known. `
    + 'Send it again only with an Idempotency-Key (the same key each time), which makes a retry safe', reason);
}

/** Serves here: a body already read for forwarding is handed to the route's body reader. */
function local(req: Request, body: ForwardBody | undefined): false {
  if (body) restoreBody(req, body);
  return false;
}

/** A body read into memory goes to the route's body reader (the request stream is spent). */
function restoreBody(req: Request, body: ForwardBody): void {
  if (body.kind === 'buffer') (req as PrereadRequest).prereadBody = body.data;
}
