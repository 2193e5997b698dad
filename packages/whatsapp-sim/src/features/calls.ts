import { randomBytes } from 'node:crypto';
import type { BinaryNode } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import { stanzaId, unixNow } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import type { Account } from '../network/model.js';
import { blocks } from '../network/model.js';
import { SimError } from '../network/errors.js';
import type { SignalLog } from './signals.js';

/** A 1:1 call between two accounts, as the control API shows it. */
export interface CallRecord {
  id: string;
  /** Caller and callee (`number@s.whatsapp.net`). */
  from: string;
  to: string;
  video: boolean;
  /** `offer` while it rings, then `accept`, `reject` or `terminate`. */
  status: 'offer' | 'accept' | 'reject' | 'terminate';
  /** Devices the offer went to (none when the callee blocked the caller: it never rings). */
  devices: string[];
  /** Each step, by the device that took it (`phone` or a companion's JID). */
  events: Array<{ action: 'offer' | 'accept' | 'reject' | 'terminate'; by: string; at: number }>;
}

/** A call link a device created (`https://call.whatsapp.com/<media>/<token>`). */
export interface CallLink {
  token: string;
  media: 'audio' | 'video';
  /** The account that created it (`number@s.whatsapp.net`). */
  by: string;
  at: number;
}

/** Calls kept for the control API; the oldest go first (call links likewise). */
export const MAX_CALLS = 1000;
const ACTIONS = new Set(['accept', 'reject', 'terminate']);
/** The phone's client, as the `<call>` stanzas of a phone name it (`platform`, `version`; whatsmeow CallRemoteMeta). */
const PHONE_CLIENT = { platform: 'android', version: '2.24.12.78' };
const jidOf = (account: Account): string => `${account.number}@s.whatsapp.net`;

/**
 * Call signalling (`<call>` stanzas) between accounts; no media flows. A phone's offer goes to the callee's
 * companions as `<call from id t><offer call-id call-creator><audio/>…</offer></call>` (whatsmeow call.go
 * handleCallEvent reads `from`, `t`, `call-id` and `call-creator`; Baileys handleCall the same and `<video>`
 * for a video call). A client's `<call to><reject|accept|terminate call-id call-creator/></call>` (Baileys
 * rejectCall, which waits for an answer with its id) is answered `<ack class="call" type>` and relayed to the
 * other party's devices, and the callee's other companions are told the call ended.
 */
export class Calls {
  private readonly calls = new Map<string, { record: CallRecord; caller: Account; callee: Account }>();
  private readonly links: CallLink[] = [];

  constructor(private readonly network: Network, private readonly signals: SignalLog) {}

  feature(): Feature {
    return { stanzas: { call: (connection, node) => this.fromClient(connection, node) } };
  }

  /** The phone of `from` calls the account `to`: the offer rings on `to`'s companions. */
  phoneCalls(fromNumber: string, toNumber: string, video = false): CallRecord {
    if (typeof video !== 'boolean') throw new SimError(400, 'invalid_request', 'video must be a boolean', { field: 'video' });
    const caller = this.network.account(fromNumber);
    const callee = this.network.account(toNumber);
    if (caller === callee) throw new SimError(400, 'invalid_call', 'a phone cannot call its own account', { field: 'to', to: toNumber });
    const id = randomBytes(16).toString('hex').toUpperCase();
    const record: CallRecord = { id, from: jidOf(caller), to: jidOf(callee), video, status: 'offer', devices: [], events: [{ action: 'offer', by: 'phone', at: Date.now() }] };
    this.keep({ record, caller, callee });
    if (blocks(callee, caller)) return record;
    const media: BinaryNode[] = [{ tag: 'audio', attrs: { enc: 'opus', rate: '16000' } }, { tag: 'audio', attrs: { enc: 'opus', rate: '8000' } }];
    if (video) media.push({ tag: 'video', attrs: { enc: 'vp8', dec: 'vp8', orientation: '0', screen_width: '1080', screen_height: '1920' } });
    const offer: BinaryNode = { tag: 'offer', attrs: { 'call-id': id, 'call-creator': record.from }, content: [...media, { tag: 'net', attrs: { medium: '3' } }] };
    for (const device of callee.companions.values()) {
      const node: BinaryNode = { tag: 'call', attrs: { from: record.from, id: stanzaId(), t: unixNow(), notify: caller.pushName, ...PHONE_CLIENT }, content: [offer] };
      if (this.signals.toCompanion(callee, device, node, { kind: 'call', from: record.from, state: 'offer', callId: id }, true)) record.devices.push(device.jid);
    }
    this.signals.toPhone(callee, { kind: 'call', from: record.from, state: 'offer', callId: id });
    record.devices.push('phone');
    return record;
  }

  /** The phone of `number` (either party) ends a call: it is terminated on the other party's devices. */
  phoneEnds(number: string, callId: string): CallRecord {
    const account = this.network.account(number);
    const call = this.calls.get(callId);
    if (!call || (call.caller !== account && call.callee !== account)) throw new SimError(404, 'call_not_found', `${number} has no call ${callId}`, { callId });
    if (call.record.status === 'reject' || call.record.status === 'terminate') throw new SimError(409, 'call_ended', `call ${callId} already ended (${call.record.status})`, { callId });
    this.step(call, account, 'phone', 'terminate');
    return call.record;
  }

  /**
   * The phone of `number`, the callee, accepts a call that rings: the caller's devices get `<call from t platform
   * version><accept call-id call-creator/></call>` (whatsmeow call.go handleCallEvent reads those attributes for
   * its CallAccept event, "emitted when a call is accepted on WhatsApp"; Baileys handleCall reports status
   * `accept`). What the callee's own companions get when its phone answers, no public source shows: they are
   * sent nothing (README "Calls").
   */
  phoneAccepts(number: string, callId: string): CallRecord {
    const account = this.network.account(number);
    const call = this.calls.get(callId);
    if (!call || call.callee !== account) throw new SimError(404, 'call_not_found', `${number} got no call ${callId}`, { callId });
    if (call.record.status !== 'offer') throw new SimError(409, 'call_not_ringing', `call ${callId} is not ringing (${call.record.status})`, { callId });
    this.step(call, account, 'phone', 'accept');
    return call.record;
  }

  /** Calls `number` made or got, oldest first. */
  of(number: string): CallRecord[] {
    const account = this.network.account(number);
    return [...this.calls.values()].filter((c) => c.caller === account || c.callee === account).map((c) => c.record);
  }

  /** Call links the account `number`'s devices created, oldest first. */
  linksOf(number: string): CallLink[] {
    const account = this.network.account(number);
    return this.links.filter((link) => link.by === jidOf(account)).map((link) => ({ ...link }));
  }

  private async fromClient(connection: ClientConnection, node: BinaryNode): Promise<void> {
    const session = this.network.session(connection);
    const child = Array.isArray(node.content) ? node.content[0] : undefined;
    if (!session || !child) return;
    if (node.attrs.to === '@call' && child.tag === 'link_create') return this.createLink(connection, session.account, node, child);
    connection.send({ tag: 'ack', attrs: { id: node.attrs.id ?? stanzaId(), class: 'call', type: child.tag, from: node.attrs.to ?? jidOf(session.account) } });
    const call = this.calls.get(child.attrs['call-id'] ?? '');
    const { account, device } = session;
    if (!call || !ACTIONS.has(child.tag) || (call.caller !== account && call.callee !== account)) return;
    if (call.record.status === 'reject' || call.record.status === 'terminate') return;
    this.step(call, account, device.jid, child.tag as 'accept' | 'reject' | 'terminate');
  }

  /** One party's device accepts, rejects or ends the call: the other party's devices and its own other companions are told. */
  private step(call: { record: CallRecord; caller: Account; callee: Account }, by: Account, byDevice: string, action: 'accept' | 'reject' | 'terminate'): void {
    const { record } = call;
    record.status = action;
    record.events.push({ action, by: byDevice, at: Date.now() });
    const other = by === call.caller ? call.callee : call.caller;
    const fromPhone = byDevice === 'phone' && action === 'accept' ? PHONE_CLIENT : {};
    const stanza = (): BinaryNode => ({
      tag: 'call', attrs: { from: jidOf(by), id: stanzaId(), t: unixNow(), ...fromPhone },
      content: [{ tag: action, attrs: { 'call-id': record.id, 'call-creator': record.from } }],
    });
    if (!blocks(other, by)) {
      for (const device of other.companions.values()) this.signals.toCompanion(other, device, stanza(), { kind: 'call', from: jidOf(by), state: action, callId: record.id });
      this.signals.toPhone(other, { kind: 'call', from: jidOf(by), state: action, callId: record.id });
    }
    // The callee's other devices stop ringing once one of them answered or the call ended (not told of its phone's answer: no source shows what they get).
    if (by === call.callee && !(action === 'accept' && byDevice === 'phone')) {
      for (const device of by.companions.values()) {
        if (device.jid === byDevice) continue;
        const node: BinaryNode = { tag: 'call', attrs: { from: record.from, id: stanzaId(), t: unixNow() }, content: [{ tag: 'terminate', attrs: { 'call-id': record.id, 'call-creator': record.from } }] };
        this.signals.toCompanion(by, device, node, { kind: 'call', from: record.from, state: 'terminate', callId: record.id });
      }
    }
  }

  private keep(call: { record: CallRecord; caller: Account; callee: Account }): void {
    this.calls.set(call.record.id, call);
    while (this.calls.size > MAX_CALLS) this.calls.delete(this.calls.keys().next().value!);
  }

  /**
   * `<call to="@call"><link_create media="audio|video"/></call>` (Baileys Socket/chats.js createCallLink, which
   * waits for the answer with its id and reads `link_create`'s `token`): answered `<call from="@call" id>
   * <link_create token media/></call>`. A media other than audio or video is refused with a 400 error child.
   */
  private createLink(connection: ClientConnection, account: Account, node: BinaryNode, child: BinaryNode): void {
    const id = node.attrs.id ?? stanzaId();
    const media = child.attrs.media;
    if (media !== 'audio' && media !== 'video') {
      connection.send({ tag: 'call', attrs: { from: '@call', id, type: 'error' }, content: [{ tag: 'error', attrs: { code: '400', text: 'bad-request' } }] });
      return;
    }
    const token = randomBytes(16).toString('base64url').slice(0, 22);
    this.links.push({ token, media, by: jidOf(account), at: Date.now() });
    if (this.links.length > MAX_CALLS) this.links.shift();
    connection.send({ tag: 'call', attrs: { from: '@call', id, t: unixNow() }, content: [{ tag: 'link_create', attrs: { token, media } }] });
  }
}
