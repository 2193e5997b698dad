import type { BinaryNode } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import type { Feature, Network } from '../network/network.js';
import type { Account, CompanionDevice } from '../network/model.js';
import { blocks } from '../network/model.js';
import { SimError } from '../network/errors.js';
import { asControl, type Group, type Groups } from './groups.js';
import { CHAT_STATES, chatStateChild, chatStateOfNode, type ChatState } from './presence.js';
import type { SignalLog } from './signals.js';

/** Whether a JID names a group (`…@g.us`). */
export const isGroupJid = (jid: string): boolean => jid.endsWith('@g.us');

/**
 * Presence and chat states in groups, as WhatsApp's server relays them:
 * - a member's `<chatstate to="group@g.us"><composing/></chatstate>` (Baileys Socket/chats.js
 *   sendPresenceUpdate with a group JID; whatsmeow presence.go SendChatPresence) reaches the other members as
 *   `<chatstate from="group@g.us" participant="member">`: whatsmeow handleChatState reads it through
 *   parseMessageSource with the participant required (message.go: a group `from` makes `participant` the
 *   sender, and `addressing_mode="lid"` makes `participant_pn` its number), and Baileys handlePresenceUpdate
 *   reports `{ id: group, presences: { [participant]: … } }`. In a LID-addressed group the participant is the
 *   member's LID with `participant_pn` beside, as its messages name it (group-addressing.ts);
 * - every other member's phone gets it (the app shows "typing…" in the open group); a companion gets it once
 *   it subscribed to the group with `<presence type="subscribe" to="group@g.us">`, as it subscribes to an
 *   account for 1:1 chat states (presence.ts): WhatsApp Web subscribes to a chat when it opens it, Baileys'
 *   presenceSubscribe takes group JIDs ("groups/newsletters don't use tctokens"), and Baileys PR #2545 shows
 *   `presenceSubscribe(groupJid)` as how a client starts getting a group's presences;
 * - the subscription is answered with `<presence from="group@g.us" count="N">`, N the members online
 *   (Baileys PR #2545 surfaces that `count` as `groupOnlineCount`, named after WA Web's PresenceModel); a
 *   non-member's subscription is answered with nothing;
 * - a member who blocked the sender, or whom the sender blocked, gets nothing, as in 1:1 chats; nothing is kept
 *   for an offline companion.
 */
export class GroupPresences {
  /** Companions subscribed to each group (by JID). */
  private readonly subscribers = new Map<string, Set<CompanionDevice>>();

  constructor(
    private readonly network: Network,
    private readonly groups: Groups,
    private readonly signals: SignalLog,
    private readonly online: (account: Account) => boolean,
  ) {}

  feature(): Feature {
    return {
      stanzas: {
        presence: (connection, node) => this.subscribe(connection, node),
        chatstate: (connection, node) => this.chatStateFromClient(connection, node),
      },
    };
  }

  /** The phone of `number` types, records or stops in the group `groupJid` (404 unknown group, 403 not a member). */
  phoneChats(number: string, groupJid: string, state: ChatState): void {
    if (!CHAT_STATES.includes(state)) throw new SimError(400, 'invalid_chat_state', `state must be one of ${CHAT_STATES.join(', ')}`, { field: 'state', state });
    const from = this.network.account(number);
    this.relay(asControl('chat state', () => this.groups.asMember(groupJid, from)), from, state);
  }

  private async subscribe(connection: ClientConnection, node: BinaryNode): Promise<void> {
    const { type, to = '' } = node.attrs;
    const session = this.network.session(connection);
    if (type !== 'subscribe' || !isGroupJid(to) || !session) return;
    const group = this.memberGroup(to, session.account);
    if (!group) return;
    const set = this.subscribers.get(group.jid) ?? new Set();
    set.add(session.device);
    this.subscribers.set(group.jid, set);
    const count = [...group.members.keys()].map((n) => this.network.accounts.get(n)).filter((a) => a && this.online(a)).length;
    this.signals.toCompanion(session.account, session.device, { tag: 'presence', attrs: { from: group.jid, count: String(count) } },
      { kind: 'presence', from: group.jid, state: 'available', group: group.jid, count });
  }

  private async chatStateFromClient(connection: ClientConnection, node: BinaryNode): Promise<void> {
    const to = node.attrs.to ?? '';
    const session = this.network.session(connection);
    const state = chatStateOfNode(node);
    if (!isGroupJid(to) || !session || !state) return;
    const group = this.memberGroup(to, session.account);
    if (group) this.relay(group, session.account, state);
  }

  /** The group, if it exists and `account` is a member (WhatsApp relays nothing else). */
  private memberGroup(jid: string, account: Account): Group | undefined {
    const group = this.groups.all().find((g) => g.jid === jid);
    return group?.members.has(account.number) ? group : undefined;
  }

  private relay(group: Group, from: Account, state: ChatState): void {
    const names = this.groups.addressing(group).attrs(from.number, 'participant', 'participant_pn');
    const record = { kind: 'chatstate' as const, from: `${from.number}@s.whatsapp.net`, state, group: group.jid, participant: names.participant! };
    const node: BinaryNode = { tag: 'chatstate', attrs: { from: group.jid, ...names, addressing_mode: group.addressingMode }, content: [chatStateChild(state)] };
    for (const number of group.members.keys()) {
      const member = this.network.accounts.get(number);
      if (!member || member === from || blocks(member, from) || blocks(from, member)) continue;
      this.signals.toPhone(member, record);
      for (const device of this.subscribers.get(group.jid) ?? []) {
        if (member.companions.get(device.id) === device && this.network.accountOf(device.jid) === member) {
          this.signals.toCompanion(member, device, { ...node, attrs: { ...node.attrs } }, record);
        }
      }
    }
  }
}
