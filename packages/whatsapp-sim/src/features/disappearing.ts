import { proto } from '@whiskeysockets/baileys';
import type { Network } from '../network/network.js';
import type { Account } from '../network/model.js';
import { contentOf, type ReceivedMessage } from '../network/phone.js';
import { SimError } from '../network/errors.js';
import { DISAPPEARING_TIMERS as DISAPPEARING } from '../verdicts.js';
import { keepTimer } from './chat-state.js';
import { asControl, groupView, type Groups, type GroupView } from './groups.js';
import type { Messaging, SentMessage } from './messaging.js';

/** The timers WhatsApp offers, in seconds, 0 being off (see the verdict's sources). */
export const DISAPPEARING_TIMERS: readonly number[] = DISAPPEARING.value;

export function isDisappearingTimer(seconds: unknown): seconds is number {
  return typeof seconds === 'number' && DISAPPEARING_TIMERS.includes(seconds);
}

/** A timer given through the control API (400 `invalid_timer` otherwise). */
function timer(seconds: unknown): number {
  if (!isDisappearingTimer(seconds)) {
    throw new SimError(400, 'invalid_timer', `expiration must be one of ${DISAPPEARING_TIMERS.join(', ')} (seconds; 0 turns it off)`, { field: 'expiration', value: seconds });
  }
  return seconds;
}

/** A 1:1 chat's disappearing-messages timer: who set it and when (Unix seconds); expiration 0 when off or never set. */
export interface ChatTimer {
  between: [string, string];
  expiration: number;
  setBy: string | undefined;
  setAt: number | undefined;
}

const EPHEMERAL_SETTING = proto.Message.ProtocolMessage.Type.EPHEMERAL_SETTING;

/**
 * Disappearing messages. In a 1:1 chat the timer travels end to end: the phone that changes it sends an
 * EPHEMERAL_SETTING protocol message (Baileys `disappearingMessagesInChat`; its process-message turns one
 * into `chats.update` with `ephemeralExpiration`), and the simulator keeps the timer of each pair of
 * accounts from those its phones send and receive. A group's timer is the server's (`<ephemeral>` in the
 * group, changed with w:g2, see Groups.setEphemeral).
 */
export class Disappearing {
  private readonly chats = new Map<string, ChatTimer>();

  constructor(private readonly network: Network, private readonly messaging: Messaging, private readonly groups: Groups) {
    messaging.onPhoneReceived((account, received) => this.observe(account, received));
  }

  /** The timer of the chat between two accounts. */
  between(a: string, b: string): ChatTimer {
    const [x, y] = [this.network.account(a).number, this.network.account(b).number];
    return { ...(this.chats.get(key(x, y)) ?? { between: [x, y].sort() as [string, string], expiration: 0, setBy: undefined, setAt: undefined }) };
  }

  /** The phone of `from` changes the timer of its chat with `to`: the protocol message goes to both accounts' devices. */
  async phoneSets(from: string, to: string, expiration: number): Promise<SentMessage> {
    const seconds = timer(expiration);
    const sender = this.network.account(from);
    const peer = this.network.account(to);
    if (sender === peer) throw new SimError(400, 'invalid_request', 'a phone sets the timer of a chat with another account', { field: 'path.peer', to });
    const sent = await this.messaging.phoneSends(from, to, { protocolMessage: { type: EPHEMERAL_SETTING, ephemeralExpiration: seconds } }, '');
    this.keep(sender, peer, seconds, sent.timestamp);
    return sent;
  }

  /** The phone of `number` changes a group's timer (a member; an admin in a locked group). */
  phoneSetsGroup(number: string, jid: string, expiration: number): GroupView {
    const seconds = timer(expiration);
    const actor = this.network.account(number);
    return groupView(asControl('disappearing messages', () => {
      const group = this.groups.asMember(jid, actor);
      if (group.restrict) this.groups.asAdmin(jid, actor);
      this.groups.setEphemeral(group, actor, seconds);
      return group;
    }));
  }

  /** A phone decrypted a 1:1 EPHEMERAL_SETTING (a companion's or the other phone's): the chat's timer changes. */
  private observe(account: Account, received: ReceivedMessage): void {
    const setting = contentOf(received.message).protocolMessage as { type?: number; ephemeralExpiration?: number } | undefined;
    if (received.group || setting?.type !== EPHEMERAL_SETTING) return;
    const sender = this.network.accountOf(received.from);
    if (sender && sender !== account) this.keep(sender, account, setting.ephemeralExpiration ?? 0, received.timestamp);
  }

  private keep(by: Account, peer: Account, expiration: number, at: number): void {
    this.chats.set(key(by.number, peer.number), { between: [by.number, peer.number].sort() as [string, string], expiration, setBy: by.number, setAt: at });
    keepTimer(by, peer, expiration, at);
  }
}

function key(a: string, b: string): string {
  return [a, b].sort().join(':');
}
