import { randomBytes } from 'node:crypto';
import { ConflictError, NotFoundError, ownMember, ValidationError, type Call, type CallStatus, type CallsCapability } from '@parley/core';
import { USER_SUFFIX, isGroupJid, jidUser, toJid } from '@parley/whatsapp-proto';
import type { SandboxDevice } from '../sandbox-device.js';
import type { CallPacket } from '../sandbox-packets.js';
import type { WhileOnline } from './connection.js';
import { hasBlocked } from './contacts.js';

/** State document of a phone's active calls, by call id. */
const CALLS = 'calls';

/** A call this phone takes part in, until it is rejected or terminated. */
export interface ActiveCall {
  callId: string;
  /** The other party's number. */
  peer: string;
  /** True when this phone placed the call. */
  outgoing: boolean;
  isVideo: boolean;
  status: CallStatus;
  /** Unix seconds of the offer. */
  startedAt: number;
  /**
   * Epoch ms when the call stops ringing unanswered: the caller's offer time plus its driver's
   * `callRingMs`, which the offer carries to the callee. Calls stored (or offers sent) before it was
   * kept count their ring time from `startedAt`.
   */
  ringUntil?: number;
}

type Calls = Record<string, ActiveCall>;

const now = (device: SandboxDevice) => Math.floor(device.network.now() / 1000);

/**
 * A call nobody answered yet, the one kind of call that can time out: an outgoing call before the
 * answer, or an incoming call before this phone accepted it.
 */
function isRinging(call: ActiveCall): boolean {
  return call.status === 'offer' || call.status === 'ringing';
}

async function readCalls(device: SandboxDevice): Promise<Calls> {
  return (await device.ctx.storage.state.get<Calls>(device.namespace, CALLS)) ?? {};
}

/** Applies `change` to the active calls atomically; answers what `change` answered. */
function updateCalls<T>(device: SandboxDevice, change: (calls: Calls) => T): Promise<T> {
  return device.exclusive(CALLS, async () => {
    const calls = await readCalls(device);
    const result = change(calls);
    await device.ctx.storage.state.put(device.namespace, CALLS, calls);
    return result;
  });
}

/** A `call` event as this phone reports it: `from` is always the other party of the call. */
function emitCall(device: SandboxDevice, call: ActiveCall, status: CallStatus): void {
  device.ctx.emit({
    type: 'call', callId: call.callId, from: call.peer, fromJid: `${call.peer}${USER_SUFFIX}`, status, isVideo: call.isVideo, isGroup: false,
    timestamp: now(device),
  });
}

/** Sends a call signal to the other party; an offer carries the call's ring deadline. */
function signal(device: SandboxDevice, call: ActiveCall, action: CallPacket['action']): Promise<boolean> {
  return device.network.send(call.peer, {
    kind: 'call', action, callId: call.callId, from: device.number, isVideo: call.isVideo, timestamp: now(device),
    ...(action === 'offer' && call.ringUntil !== undefined ? { ringUntil: call.ringUntil } : {}),
  });
}

/**
 * Voice and video calls between sandbox phones. Placing a call sends an offer to the callee's phone,
 * which reports it as a `call` event with status `offer` and rings back (`ringing` on the caller);
 * accepting, rejecting and ending are signalled to the other phone, and both sides report the new
 * status. A call nobody answers stops ringing after the driver's `callRingMs` (status `timeout` on both
 * phones). Active calls are kept in each phone's state with their ring deadline; a rejected, ended or
 * timed-out call is gone (404 after).
 *
 * Both phones time a ringing call out at the same deadline, which the offer carries, each on its own
 * and only while it is online: the callee's copy stops ringing even when the caller's phone is logged
 * out or deleted. The caller's phone also signals its time-out; a callee that already timed out the
 * call no longer knows it and ignores the signal, and the callee's time-out is not signalled back.
 * When a phone comes back (a server restart restoring it, a reconnect after a logout), each of its
 * calls still ringing times out at once if its deadline passed meanwhile, or after the time it has
 * left. A time-out removes the call from state before it reports `timeout`, so each phone reports one
 * `timeout` per call however many timers and signals there were for it.
 */
export class SandboxCalls implements CallsCapability, WhileOnline {
  /** Pending ring time-outs by call id, only while the phone is online. */
  private readonly ringTimers = new Map<string, NodeJS.Timeout>();
  /** Bumped each time the phone goes offline: a time-out armed for an earlier online spell is not set. */
  private onlineSpell = 0;

  constructor(private readonly device: SandboxDevice) {
    device.handleCallSignals((packet) => this.receive(packet));
  }

  /** Arms the ring time-out of every call still ringing (a deadline already passed fires at once). */
  async online(): Promise<void> {
    const spell = this.onlineSpell;
    const calls = await readCalls(this.device);
    for (const call of Object.values(calls)) if (isRinging(call)) this.armRingOut(call, spell);
  }

  /** Drops every pending time-out: the deadlines stay in state for the next time the phone is online. */
  offline(): void {
    this.onlineSpell++;
    for (const timer of this.ringTimers.values()) clearTimeout(timer);
    this.ringTimers.clear();
  }

  /**
   * Times the call out at its deadline, once per online spell. A call answered or ended meanwhile
   * keeps its timer, which finds nothing to do when it fires.
   */
  private armRingOut(call: ActiveCall, spell: number): void {
    if (spell !== this.onlineSpell || this.ringTimers.has(call.callId)) return;
    const deadline = call.ringUntil ?? call.startedAt * 1000 + this.device.options.callRingMs;
    const timer = setTimeout(() => {
      this.ringTimers.delete(call.callId);
      this.ringOut(call.callId).catch((err: unknown) => this.device.ctx.logger.warn({ err }, 'sandbox call time-out failed'));
    }, Math.max(0, deadline - this.device.network.now()));
    // A ringing call must not keep the process alive: its deadline is in state for the next start.
    timer.unref();
    this.ringTimers.set(call.callId, timer);
  }

  /**
   * Handles a call signal from another phone. An offer from a number this phone blocked is dropped
   * (the caller never hears it ring); any other offer rings until its deadline. Signals for calls this
   * phone does not know (or no longer knows: ended, rejected, timed out) are ignored.
   */
  async receive(packet: CallPacket): Promise<void> {
    const spell = this.onlineSpell;
    const { device } = this;
    if (packet.action === 'offer') {
      if (await hasBlocked(device, packet.from)) return;
      const call: ActiveCall = {
        callId: packet.callId, peer: packet.from, outgoing: false, isVideo: packet.isVideo, status: 'offer', startedAt: packet.timestamp,
        ringUntil: packet.ringUntil ?? packet.timestamp * 1000 + device.options.callRingMs,
      };
      await updateCalls(device, (calls) => {
        calls[call.callId] = call;
      });
      emitCall(device, call, 'offer');
      this.armRingOut(call, spell);
      await signal(device, call, 'ringing');
      return;
    }
    const changed = await updateCalls(device, (calls) => {
      const call = ownMember(calls, packet.callId);
      if (!call || call.peer !== packet.from) return null;
      if (packet.action === 'terminate') {
        delete calls[packet.callId];
        return call;
      }
      // The caller's phone stopped ringing: an incoming call nobody answered.
      if (packet.action === 'timeout') {
        if (call.outgoing || call.status !== 'offer') return null;
        delete calls[packet.callId];
        return call;
      }
      // Only the caller hears ringing and the answer, and ringing only before the answer.
      if (!call.outgoing || (packet.action === 'ringing' && call.status !== 'offer')) return null;
      if (packet.action === 'reject') delete calls[packet.callId];
      else call.status = packet.action;
      return call;
    });
    if (changed) emitCall(device, changed, packet.action);
  }

  async offer(to: string, options: { isVideo?: boolean } = {}): Promise<Call> {
    this.device.requireConnected();
    const spell = this.onlineSpell;
    const peerJid = toJid(to, 'body.to');
    if (isGroupJid(peerJid) || !peerJid.endsWith(USER_SUFFIX)) throw new ValidationError('body.to must be a phone number: the sandbox calls one number at a time');
    const peer = jidUser(peerJid);
    if (peer === this.device.number) throw new ValidationError('body.to cannot be the instance\'s own number');
    if (!(await this.device.network.instanceOf(peer))) throw new NotFoundError(`number ${peer} on the sandbox network`, 'number_not_registered');
    if (await hasBlocked(this.device, peer)) throw new ConflictError(`${peer} is blocked: unblock it to call it`, 'contact_blocked');
    const offeredAt = this.device.network.now();
    const call: ActiveCall = {
      callId: randomBytes(16).toString('hex').toUpperCase(), peer, outgoing: true, isVideo: options.isVideo ?? false, status: 'offer',
      startedAt: Math.floor(offeredAt / 1000), ringUntil: offeredAt + this.device.options.callRingMs,
    };
    await updateCalls(this.device, (calls) => {
      calls[call.callId] = call;
    });
    await signal(this.device, call, 'offer');
    this.armRingOut(call, spell);
    return { callId: call.callId, peerJid, isVideo: call.isVideo, status: 'offer' };
  }

  /**
   * Ends a call nobody answered in time: this phone reports `timeout`. The caller's phone also signals
   * it to the callee, which times the call out at the same deadline anyway.
   */
  private async ringOut(callId: string): Promise<void> {
    const call = await updateCalls(this.device, (calls) => {
      const found = ownMember(calls, callId);
      if (!found || !isRinging(found)) return null;
      delete calls[callId];
      return found;
    });
    if (!call) return;
    emitCall(this.device, call, 'timeout');
    if (call.outgoing) await signal(this.device, call, 'timeout');
  }

  async accept(callId: string, callFrom: string): Promise<void> {
    await this.answer(callId, callFrom, 'accept');
  }

  async reject(callId: string, callFrom: string): Promise<void> {
    await this.answer(callId, callFrom, 'reject');
  }

  /** Accepts or rejects an incoming call that is still ringing. */
  private async answer(callId: string, callFrom: string, action: 'accept' | 'reject'): Promise<void> {
    this.device.requireConnected();
    const caller = jidUser(callFrom);
    const call = await updateCalls(this.device, (calls) => {
      const found = ownMember(calls, callId);
      if (!found || found.outgoing || found.peer !== caller) throw new NotFoundError(`incoming call ${callId} from ${caller}`, 'call_not_found');
      if (found.status !== 'offer') throw new ConflictError(`call ${callId} was already ${found.status === 'accept' ? 'accepted' : 'answered'}`, 'call_not_ringing');
      if (action === 'accept') found.status = 'accept';
      else delete calls[callId];
      return found;
    });
    emitCall(this.device, call, action);
    await signal(this.device, call, action);
  }

  async end(callId: string, peerJid: string): Promise<void> {
    this.device.requireConnected();
    const peer = jidUser(peerJid);
    const call = await updateCalls(this.device, (calls) => {
      const found = ownMember(calls, callId);
      if (!found || found.peer !== peer) throw new NotFoundError(`call ${callId} with ${peer}`, 'call_not_found');
      delete calls[callId];
      return found;
    });
    emitCall(this.device, call, 'terminate');
    await signal(this.device, call, 'terminate');
  }
}
