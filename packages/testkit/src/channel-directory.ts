import { channelDirectory, type ChannelDirectory } from '@parley/core';

/**
 * The channels a default Parley server registers, as its drivers declare them: `whatsapp` (main, by
 * the Baileys and sandbox drivers, phone-number addressing), `instagram` and `messenger` (social,
 * user-id addressing). For tests of code that takes a {@link ChannelDirectory} without booting
 * drivers (the webhook engine, webhook formats). WhatsApp's addressing is given by the members the
 * webhook side reads (description, phone numbers): its rules live with the WhatsApp drivers.
 */
const WHATSAPP = { description: 'Phone number with country code (digits), or a JID.', phoneNumbers: true } as const;

export function shippedChannelDirectory(): ChannelDirectory {
  return channelDirectory([
    { name: 'whatsapp', channel: 'whatsapp', role: 'main', addressing: WHATSAPP },
    { name: 'sandbox', channel: 'whatsapp', role: 'main', addressing: WHATSAPP },
    { name: 'instagram', channel: 'instagram', role: 'social', addressing: { description: 'The Instagram-scoped user id (IGSID) of the recipient (digits).', phoneNumbers: false } },
    { name: 'messenger', channel: 'messenger', role: 'social', addressing: { description: 'The Page-scoped user id (PSID) of the recipient (digits).', phoneNumbers: false } },
  ]);
}
