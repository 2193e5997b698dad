import { Command, Option } from 'commander';
import { withContext } from '../command-kit.js';
import { emit } from '../output.js';
import { resolveInstance } from '../resolve-instance.js';

/** `parley send <instance> <to> <text>`: `POST /{key}/message/text`. */
export function sendCommand(): Command {
  return new Command('send').description('send a text message')
    .argument('<instance>', 'instance id, name or key (the key without an admin token)')
    .argument('<to>', 'recipient: a phone number with country code, a JID, or the channel\'s user id')
    .argument('<text>', 'the text (quote it)')
    .addOption(new Option('--provider <channel>', 'channel to send through (default: the instance\'s main channel)').choices(['whatsapp', 'instagram', 'messenger']))
    .action(withContext<{ provider?: 'whatsapp' | 'instagram' | 'messenger' }>(async (ctx, options, ref, to, text) => {
      const { key } = await resolveInstance(ctx, ref!);
      const { data } = await ctx.client.instance(key).call('sendText', { body: { to: to!, text: text!, ...(options.provider ? { provider: options.provider } : {}) } });
      emit(ctx, data, () => `Sent message ${data.key.id} to ${data.key.remoteJid} (status ${data.status}).`);
    }));
}
