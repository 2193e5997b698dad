import { SimError } from '../network/errors.js';
import { deviceOf } from '../network/network.js';
import type { Network } from '../network/network.js';

/**
 * How a group names its members on the wire (`addressing_mode` of its `<group>` node). `pn`: by phone number,
 * the LID beside (`jid="pn" lid="lid"`). `lid`: by LID, the number beside — how WhatsApp creates groups now:
 * metadata participants `jid="lid@lid" phone_number="pn"`, `creator`/`creator_pn`, `s_o`/`s_o_pn`, a
 * description's `participant`/`participant_pn` (Baileys Socket/groups.js extractGroupMetadata; whatsmeow group.go
 * parseParticipant), notifications and messages from `participant="lid"` with `participant_pn` (Baileys
 * Socket/messages-recv.js handleGroupNotification, Utils/decode-wa-message.js extractAddressingContext; whatsmeow
 * message.go parseMessageSource), and receipts the same (whatsmeow receipt tests: `participant` LID with
 * `participant_pn`). The `_pn` attributes name the user without a device (Baileys: "without device data").
 */
export type AddressingMode = 'pn' | 'lid';
const ADDRESSING_MODES: readonly AddressingMode[] = ['pn', 'lid'];

/** `mode` if it is an addressing mode; else 400 naming `addressingMode`. */
export function addressingMode(mode: unknown): AddressingMode {
  if (ADDRESSING_MODES.includes(mode as AddressingMode)) return mode as AddressingMode;
  throw new SimError(400, 'invalid_request', `addressingMode must be one of ${ADDRESSING_MODES.join(', ')}`, { field: 'addressingMode' });
}

/** Names accounts in a group's addressing mode. */
export class GroupAddressing {
  constructor(private readonly network: Network, readonly mode: AddressingMode) {}

  /**
   * The attributes naming the account of `number` under `name` (and, in a LID group, its number under `alt`):
   * `{ participant: "lid@lid", participant_pn: "pn@s.whatsapp.net" }` or `{ participant: "pn@s.whatsapp.net" }`.
   * A number the network does not know keeps its phone-number JID.
   */
  attrs(number: string, name: string, alt: string): Record<string, string> {
    const pn = `${number}@s.whatsapp.net`;
    const account = this.network.accounts.get(number);
    if (this.mode !== 'lid' || !account) return { [name]: pn };
    return { [name]: `${account.lid}@lid`, [alt]: pn };
  }

  /** A `<participant>` child's attributes: `jid` and, in a LID group, `phone_number`. */
  participant(number: string): Record<string, string> {
    return this.attrs(number, 'jid', 'phone_number');
  }

  /**
   * A device (`number[:device]@s.whatsapp.net`) as the group names the author of a notification, message or
   * receipt: `participant` (in a LID group its LID device JID, `lid[:device]@lid`, and `participant_pn` its number).
   */
  device(jid: string): Record<string, string> {
    const account = this.network.accountOf(jid);
    if (this.mode !== 'lid' || !account) return { participant: jid };
    const device = deviceOf(jid);
    return { participant: `${account.lid}${device ? `:${device}` : ''}@lid`, participant_pn: `${account.number}@s.whatsapp.net` };
  }
}

/** A number given as a phone-number JID (`pn@s.whatsapp.net`) or as digits: its digits. */
export const numberOf = (pnJid: string): string => pnJid.split('@')[0]!;
