import { Command, InvalidArgumentError } from 'commander';
import type { Operations } from '@parley/client';
import { withContext } from '../command-kit.js';
import { emit, fields, isoTime, table } from '../output.js';
import { describeInstance, listAllInstances, resolveInstance, type InstanceRecord } from '../resolve-instance.js';
import { requireAdmin } from '../settings.js';

type CreateBody = NonNullable<Operations['adminCreateInstance']['body']>;

interface CreateOptions {
  channel?: string;
  name?: string;
  option: Record<string, string>;
  options?: Record<string, unknown>;
  webhookUrl?: string;
  webhookFormat?: string;
}

/** `--option key=value`, repeatable: collected into one object. */
function keyValue(value: string, previous: Record<string, string>): Record<string, string> {
  const at = value.indexOf('=');
  if (at < 1) throw new InvalidArgumentError('must be key=value');
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

function jsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('must be a JSON object');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidArgumentError('must be a JSON object');
  return parsed as Record<string, unknown>;
}

function account(instance: InstanceRecord): string {
  const user = instance.user as { id?: string; name?: string } | null | undefined;
  return user?.id ? `${user.id.split(/[:@]/)[0]}${user.name ? ` (${user.name})` : ''}` : '-';
}

function describeRecord(instance: InstanceRecord): string {
  return fields([
    ['id', instance.id], ['name', instance.name || '-'], ['channel', instance.channel], ['connected', instance.phoneConnected ? 'yes' : 'no'],
    ['health', instance.health ?? '-'], ['account', account(instance)], ['created', isoTime(instance.createdAt)],
    ['linked channels', instance.linkedChannels?.join(', ') || '-'],
  ]);
}

/** `parley instances list|show|create|delete`: the admin API's instance operations. */
export function instancesCommand(): Command {
  const instances = new Command('instances').description('list, show, create and delete instances (admin token)');

  instances.command('list').description('list every instance (all pages), in creation order')
    .option('--show-keys', 'add the KEY column (instance keys are secrets)')
    .action(withContext<{ showKeys?: boolean }>(async (ctx, options) => {
      requireAdmin(ctx, 'instances list');
      const all = await listAllInstances(ctx);
      emit(ctx, all, () => {
        if (all.length === 0) return 'No instances. Create one with: parley instances create --channel sandbox --name alice';
        const headers = ['id', 'name', 'channel', 'connected', 'health', 'account', 'created', ...(options.showKeys ? ['key'] : [])];
        return table(headers, all.map((i) => [
          i.id, i.name || '-', i.channel, i.phoneConnected ? 'yes' : 'no', i.health ?? '-', account(i), isoTime(i.createdAt), ...(options.showKeys ? [i.key] : []),
        ]));
      });
    }));

  instances.command('show').description('show one instance').argument('<instance>', 'instance id, name or key')
    .action(withContext(async (ctx, _options, ref) => {
      requireAdmin(ctx, 'instances show');
      const { record } = await resolveInstance(ctx, ref!);
      emit(ctx, record, () => describeRecord(record!));
    }));

  instances.command('create').description('create an instance; prints its key (its secret credential) and webhook secret')
    .option('--channel <channel>', 'main channel driver: whatsapp, sandbox, … (default: the server\'s defaultChannel)')
    .option('--name <name>', 'a name to find it by (parley connect <name>)')
    .option('--option <key=value>', 'a driver option (string value), repeatable: --option number=5511900000001', keyValue, {})
    .option('--options <json>', 'driver options as a JSON object (merged under --option)', jsonObject)
    .option('--webhook-url <url>', 'send every event to this URL (webhookMessage, allowWebhook on)')
    .option('--webhook-format <format>', 'webhook format: native, meta, both, or a format plugin\'s name')
    .action(withContext<CreateOptions>(async (ctx, options) => {
      requireAdmin(ctx, 'instances create');
      const driverOptions = { ...(options.options ?? {}), ...options.option };
      const webhook: CreateBody['webhook'] = {
        ...(options.webhookUrl !== undefined ? { allowWebhook: true, webhookMessage: options.webhookUrl } : {}),
        ...(options.webhookFormat !== undefined ? { webhookFormat: options.webhookFormat } : {}),
      };
      const body: CreateBody = {
        ...(options.channel !== undefined ? { channel: options.channel } : {}),
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...(Object.keys(driverOptions).length ? { options: driverOptions } : {}),
        ...(Object.keys(webhook).length ? { webhook } : {}),
      };
      const { data } = await ctx.client.call('adminCreateInstance', { body });
      emit(ctx, data, () => [
        `Created instance ${describeInstance({ key: data.key, record: data })} on channel ${data.channel}.`,
        fields([['key', data.key], ['webhook secret', data.webhookSecret]]),
        'The key is the instance\'s only credential: keep it secret.',
        `Link it with: parley connect ${data.name || data.id}`,
      ].join('\n'));
    }));

  instances.command('delete').description('log out and delete an instance with all its data').argument('<instance>', 'instance id, name or key')
    .action(withContext(async (ctx, _options, ref) => {
      requireAdmin(ctx, 'instances delete');
      const instance = await resolveInstance(ctx, ref!);
      await ctx.client.call('adminDeleteInstance', { params: { key: instance.record!.id } });
      emit(ctx, { id: instance.record!.id, name: instance.record!.name, deleted: true }, () => `Deleted instance ${describeInstance(instance)}.`);
    }));

  return instances;
}
