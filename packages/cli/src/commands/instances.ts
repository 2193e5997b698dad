import { Command, InvalidArgumentError } from 'commander';
import type { Operations } from '@parley/client';
import { withContext } from '../command-kit.js';
import { emit, fields, isoTime, table } from '../output.js';
import { describeInstance, listAllInstances, resolveInstance, type InstanceRecord } from '../resolve-instance.js';
import { requireAdmin } from '../settings.js';
import { addWaitOptions, waitFor, type WaitOptions } from '../wait.js';

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

/** The node running the instance, on a cluster node (`none` while it has no owner); `undefined` on a single server. */
function owner(instance: InstanceRecord): string | undefined {
  return 'owner' in instance ? (instance.owner ?? 'none') : undefined;
}

function describeRecord(instance: InstanceRecord): string {
  const node = owner(instance);
  return fields([
    ['id', instance.id], ['name', instance.name || '-'], ['channel', instance.channel], ['connected', instance.phoneConnected ? 'yes' : 'no'],
    ['health', instance.health ?? '-'], ...(node === undefined ? [] : [['owner', node] as const]), ['account', account(instance)],
    ['created', isoTime(instance.createdAt)], ['linked channels', instance.linkedChannels?.join(', ') || '-'],
  ]);
}

/** `parley instances list|show|create|delete|move`: the admin API's instance operations. */
export function instancesCommand(): Command {
  const instances = new Command('instances').description('list, show, create, delete and move instances (admin token)');

  instances.command('list').description('list every instance (all pages), in creation order')
    .option('--show-keys', 'add the KEY column (instance keys are secrets)')
    .action(withContext<{ showKeys?: boolean }>(async (ctx, options) => {
      requireAdmin(ctx, 'instances list');
      const all = await listAllInstances(ctx);
      emit(ctx, all, () => {
        if (all.length === 0) return 'No instances. Create one with: parley instances create --channel sandbox --name alice';
        // A cluster node gives every instance its owner: then the OWNER column.
        const clustered = all.some((i) => owner(i) !== undefined);
        const headers = ['id', 'name', 'channel', 'connected', 'health', ...(clustered ? ['owner'] : []), 'account', 'created', ...(options.showKeys ? ['key'] : [])];
        return table(headers, all.map((i) => [
          i.id, i.name || '-', i.channel, i.phoneConnected ? 'yes' : 'no', i.health ?? '-', ...(clustered ? [owner(i) ?? '-'] : []), account(i),
          isoTime(i.createdAt), ...(options.showKeys ? [i.key] : []),
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

  const move = instances.command('move').description('move an instance to another cluster node: its owner stops it and the node takes it and reconnects it')
    .argument('<instance>', 'instance id, name or key').argument('<node>', 'id of a live node taking instances (parley cluster status)');
  addWaitOptions(move, 'the node runs the instance')
    .action(withContext<WaitOptions>(async (ctx, options, ref, node) => {
      requireAdmin(ctx, 'instances move');
      const instance = await resolveInstance(ctx, ref!);
      const what = describeInstance(instance);
      const { data } = await ctx.client.call('adminMoveInstance', { params: { key: instance.record!.id }, body: { node: node! } });
      if (options.wait) {
        await waitFor(ctx, options.timeout, `${data.to} runs instance ${what}`, async () => {
          const { owner: now } = (await ctx.client.call('adminGetInstance', { params: { key: data.instance } })).data;
          return now === data.to ? undefined : `owner: ${now ?? 'none'} (moving to ${data.to})…`;
        });
      }
      emit(ctx, data, () => (data.from === data.to
        ? `Instance ${what} runs on ${data.to} already.`
        : options.wait ? `Moved instance ${what} from ${data.from} to ${data.to}.` : `Moving instance ${what} from ${data.from} to ${data.to}: it reconnects there within moments.`));
    }));

  return instances;
}
