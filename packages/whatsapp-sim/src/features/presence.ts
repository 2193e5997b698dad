import type { BinaryNode } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import type { Feature, Network } from '../network/network.js';
import type { Account, CompanionDevice } from '../network/model.js';
import { blocks } from '../network/model.js';
import { seesLastSeen, seesOnline } from './privacy-rules.js';
import { SimError } from '../network/errors.js';
import type { SignalLog } from './signals.js';

export type ChatState = 'composing' | 'recording' | 'paused';
export const CHAT_STATES: readonly ChatState[] = ['composing', 'recording', 'paused'];

/** An account's presence: whether the phone or a companion is available, and when it was last seen. */
interface Online {
  phone: boolean;
  companions: Set<CompanionDevice>;
  lastSeen: number;
}

const jidOf = (account: Account): string => `${account.number}@s.whatsapp.net`;

/** The child of a `<chatstate>` for a state: `<composing/>`, `<composing media="audio"/>` (recording) or `<paused/>`. */
export function chatStateChild(state: ChatState): BinaryNode {
  return state === 'paused' ? { tag: 'paused', attrs: {} } : { tag: 'composing', attrs: state === 'recording' ? { media: 'audio' } : {} };
}

/** The state a client's `<chatstate>` carries, if it is one WhatsApp knows. */
export function chatStateOfNode(node: BinaryNode): ChatState | undefined {
  const child = Array.isArray(node.content) ? node.content[0] : undefined;
  if (child?.tag === 'composing') return child.attrs.media === 'audio' ? 'recording' : 'composing';
  return child?.tag === 'paused' ? 'paused' : undefined;
}

/**
 * Presence and chat states (typing, recording) between accounts, as WhatsApp's server relays them:
 * - a device's `<presence type="available|unavailable">` (Baileys sendPresenceUpdate; no `type` is
 *   available) makes the account online or offline; the account is online while its phone or any
 *   companion is available;
 * - `<presence type="subscribe" to>` (presenceSubscribe) subscribes that companion to an account: it gets
 *   the current presence at once and every change after (whatsmeow presence.go SubscribePresence: "you
 *   should start receiving *events.Presence for that user"), without `type` when available and with
 *   `type="unavailable" last` otherwise (whatsmeow handlePresence reads exactly these; `last="deny"` when the
 *   account's `last` privacy hides it from the subscriber); an account whose `online` privacy hides it from
 *   the subscriber (`match_last_seen` with a last seen it does not see) always looks offline to it
 *   (privacy-rules.ts seesOnline, seesLastSeen);
 * - `<chatstate to><composing|paused/></chatstate>` (`composing media="audio"` for recording) goes to the
 *   addressee's companions that subscribed to the sender, with `from` the sender (whatsmeow handleChatState);
 * - nothing goes from an account to one that blocked it, nor to one it blocked.
 * Groups' chat states and subscriptions are group-presence.ts's.
 */
export class Presences {
  private readonly online = new Map<Account, Online>();
  /** Companions subscribed to each account's presence. */
  private readonly subscribers = new Map<Account, Set<CompanionDevice>>();

  constructor(private readonly network: Network, private readonly signals: SignalLog) {}

  feature(): Feature {
    return {
      stanzas: {
        presence: (connection, node) => this.fromClient(connection, node),
        chatstate: (connection, node) => this.chatStateFromClient(connection, node),
      },
      closed: (connection) => {
        for (const [account, state] of this.online) {
          const gone = [...state.companions].filter((d) => d.connection === connection || !d.connection);
          if (gone.length === 0) continue;
          const was = this.isOnline(account);
          for (const device of gone) state.companions.delete(device);
          this.changed(account, was);
        }
      },
    };
  }

  /** The phone of `number` goes online or offline; subscribers are told. */
  phoneSets(number: string, presence: 'available' | 'unavailable'): { number: string; online: boolean; lastSeen: number } {
    if (presence !== 'available' && presence !== 'unavailable') throw new SimError(400, 'invalid_presence', 'presence must be available or unavailable', { field: 'presence', presence });
    const account = this.network.account(number);
    const state = this.stateOf(account);
    const was = this.isOnline(account);
    state.phone = presence === 'available';
    this.changed(account, was);
    return this.of(number);
  }

  /** Whether the account of `number` is online (its phone or a companion available), and when it was last seen. */
  of(number: string): { number: string; online: boolean; lastSeen: number } {
    const account = this.network.account(number);
    return { number: account.number, online: this.isOnline(account), lastSeen: this.stateOf(account).lastSeen };
  }

  /** The phone of `number` types, records or stops in its chat with `to`: `to`'s subscribed companions are told. */
  phoneChats(number: string, to: string, state: ChatState): void {
    if (!CHAT_STATES.includes(state)) throw new SimError(400, 'invalid_chat_state', `state must be one of ${CHAT_STATES.join(', ')}`, { field: 'state', state });
    const from = this.network.account(number);
    const target = this.network.account(to);
    if (target === from) throw new SimError(400, 'invalid_chat_state', 'a phone has no chat with itself', { field: 'to', to });
    this.relayChatState(from, target, state);
  }

  /**
   * The presence stanza `viewer` gets about `account`: online when its privacy shows that to the viewer, else
   * offline with its last seen, or `deny` when that is hidden from the viewer (privacy-rules.ts).
   */
  private presenceOf(account: Account, viewer: Account): BinaryNode {
    if (this.isOnline(account) && seesOnline(account, viewer)) return { tag: 'presence', attrs: { from: jidOf(account) } };
    const last = seesLastSeen(account, viewer) ? String(this.stateOf(account).lastSeen) : 'deny';
    return { tag: 'presence', attrs: { from: jidOf(account), type: 'unavailable', last } };
  }

  private async fromClient(connection: ClientConnection, node: BinaryNode): Promise<void> {
    const session = this.network.session(connection);
    if (!session) return;
    const { account, device } = session;
    const { type, to } = node.attrs;
    if (type === 'subscribe' && to) {
      const target = this.network.accountOf(to);
      if (!target || target === account) return;
      const set = this.subscribers.get(target) ?? new Set();
      set.add(device);
      this.subscribers.set(target, set);
      if (!blocks(target, account) && !blocks(account, target)) this.send(account, device, this.presenceOf(target, account), target);
      return;
    }
    // A presence without a type is available, as WhatsApp reads it (Baileys' own inbound handler too:
    // `attrs.type === 'unavailable' ? 'unavailable' : 'available'`): Baileys sends one when it announces its name.
    if (type !== undefined && type !== 'available' && type !== 'unavailable') return;
    const state = this.stateOf(account);
    const was = this.isOnline(account);
    if (type === 'unavailable') state.companions.delete(device);
    else state.companions.add(device);
    this.changed(account, was);
  }

  private async chatStateFromClient(connection: ClientConnection, node: BinaryNode): Promise<void> {
    const session = this.network.session(connection);
    const target = this.network.accountOf(node.attrs.to ?? '');
    const state = chatStateOfNode(node);
    if (session && target && target !== session.account && state) this.relayChatState(session.account, target, state);
  }

  private relayChatState(from: Account, target: Account, state: ChatState): void {
    if (blocks(target, from) || blocks(from, target)) return;
    this.signals.toPhone(target, { kind: 'chatstate', from: jidOf(from), state });
    const child = chatStateChild(state);
    for (const device of this.subscribers.get(from) ?? []) {
      if (this.network.accountOf(device.jid) !== target) continue;
      this.signals.toCompanion(target, device, { tag: 'chatstate', attrs: { from: jidOf(from) }, content: [child] }, { kind: 'chatstate', from: jidOf(from), state });
    }
  }

  private send(viewer: Account, device: CompanionDevice, node: BinaryNode, about: Account): void {
    const state = node.attrs.type === 'unavailable' ? 'unavailable' : 'available';
    this.signals.toCompanion(viewer, device, node, { kind: 'presence', from: jidOf(about), state, ...(node.attrs.last ? { last: node.attrs.last } : {}) });
  }

  private changed(account: Account, was: boolean): void {
    const now = this.isOnline(account);
    if (now === was) return;
    if (!now) this.stateOf(account).lastSeen = Math.floor(Date.now() / 1000);
    for (const device of this.subscribers.get(account) ?? []) {
      const viewer = this.network.accountOf(device.jid);
      if (!viewer || viewer.companions.get(device.id) !== device || blocks(account, viewer) || blocks(viewer, account)) continue;
      // A viewer the account's online is hidden from sees no change: it was and stays "last seen: deny".
      if (seesOnline(account, viewer)) this.send(viewer, device, this.presenceOf(account, viewer), account);
    }
  }

  /** Whether the account is online: its phone or a companion available. */
  isOnline(account: Account): boolean {
    const state = this.online.get(account);
    return !!state && (state.phone || state.companions.size > 0);
  }

  private stateOf(account: Account): Online {
    let state = this.online.get(account);
    if (!state) this.online.set(account, state = { phone: false, companions: new Set(), lastSeen: Math.floor(Date.now() / 1000) });
    return state;
  }
}
