import { Command } from 'commander';
import { integer, withContext } from '../command-kit.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { emit, fields, isoTime, table } from '../output.js';
import { resolveInstance } from '../resolve-instance.js';

const INSTANCE = ['<instance>', 'instance id, name or key (the key without an admin token)'] as const;

/** `parley webhooks stats|dead-letters|redeliver`: an instance's webhook delivery state. */
export function webhooksCommand(): Command {
  const webhooks = new Command('webhooks').description('webhook delivery statistics and dead letters of an instance');

  webhooks.command('stats').description('deliveries sent, failed attempts, pending, average response time').argument(...INSTANCE)
    .action(withContext(async (ctx, _options, ref) => {
      const { key } = await resolveInstance(ctx, ref!);
      const { data } = await ctx.client.instance(key).call('webhookStatistics');
      emit(ctx, data, () => fields([
        ['sent', String(data.totalSent)], ['failed attempts', String(data.totalFailed)], ['pending', String(data.totalPending)],
        ['avg response', `${data.avgResponseTime} ms`],
      ]));
    }));

  webhooks.command('dead-letters').description('deliveries that exhausted their retries, oldest dead first').argument(...INSTANCE)
    .option('--limit <n>', 'page size, 1–500', integer(1, 500), 50)
    .option('--offset <n>', 'dead letters to skip', integer(0, Number.MAX_SAFE_INTEGER), 0)
    .action(withContext<{ limit: number; offset: number }>(async (ctx, options, ref) => {
      const { key } = await resolveInstance(ctx, ref!);
      const page = await ctx.client.instance(key).call('webhookDeadLetters', { query: { limit: options.limit, offset: options.offset } });
      emit(ctx, page, () => {
        if (page.total === 0) return 'No dead letters.';
        const rows = page.data.map((d) => [d.id, d.eventType, d.format, String(d.attempts), d.lastError ?? '-', isoTime(d.deadAt), d.url]);
        const shown = page.data.length ? `${page.offset + 1}–${page.offset + page.data.length}` : 'none';
        return `${table(['id', 'event', 'format', 'attempts', 'last error', 'dead at', 'url'], rows)}\n(${shown} of ${page.total}; redeliver with: parley webhooks redeliver ${ref} <id…> | --all)`;
      });
    }));

  webhooks.command('redeliver').description('queue dead letters again, due now: the given ids, or --all').argument(...INSTANCE)
    .argument('[ids...]', 'dead-letter ids (from dead-letters)')
    .option('--all', 'every dead letter of the instance')
    .option('--current', 'to the webhook settings as they are now (URL, format), not the URL and format they failed with')
    .action(async (ref: string, ids: string[], options: { all?: boolean; current?: boolean }, command: Command) => {
      if (options.all && ids.length) throw new CliError('give dead-letter ids or --all, not both', ExitCode.usage);
      if (!options.all && !ids.length) throw new CliError('give the dead-letter ids to redeliver, or --all', ExitCode.usage);
      await withContext(async (ctx) => {
        const { key } = await resolveInstance(ctx, ref);
        const body = { ...(options.all ? {} : { ids }), ...(options.current ? { target: 'current' as const } : {}) };
        const { data } = await ctx.client.instance(key).call('webhookRedeliver', { body });
        const count = data.redelivered ?? 0;
        const kept = data.kept?.length ?? 0;
        const missing = !options.all && count + kept < ids.length ? ` (${ids.length - count - kept} of the ids given were not dead letters of this instance)` : '';
        const keptText = kept ? `; ${kept} kept (their event left the event log, or the current settings send it nowhere)` : '';
        emit(ctx, data, () => `Queued ${count} dead letter${count === 1 ? '' : 's'} again${options.current ? ' to the current settings' : ''}${missing}${keptText}.`);
      })(options, command);
    });

  return webhooks;
}
