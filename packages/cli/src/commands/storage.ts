import { Command } from 'commander';
import type { StorageCopySummary } from '@parley/distribution';
import { integer } from '../command-kit.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { emit, table } from '../output.js';
import { serverModule } from '../server-module.js';

interface CopyOptions {
  from: string;
  to: string;
  instance?: string[];
  batch: number;
}

const ENDPOINT_HELP = 'a server configuration file (PARLEY_CONFIG format: its storage and media plugins are used), a JSON file of one plugin entry, '
  + 'or inline JSON: \'{"package":"@parley/storage-postgres","options":{"url":"postgres://…"}}\'';

function describeSummary(summary: StorageCopySummary): string {
  const rows = summary.instances.map((c) => [c.id, c.name, String(c.messages), String(c.chats), String(c.contacts), String(c.media), String(c.authState), String(c.events)]);
  return `${table(['instance', 'name', 'messages', 'chats', 'contacts', 'media', 'auth state', 'events'], rows)}\n`
    + `${summary.instances.length} instance(s) copied, with ${summary.state.documents} state document(s) in ${summary.state.namespaces} namespace(s).`;
}

/**
 * `parley storage copy`: copies instances with everything they own from one storage back end to
 * another (SQLite to PostgreSQL, docs/storage.md), in this process, with the servers stopped.
 */
export function storageCommand(): Command {
  const storage = new Command('storage').description('operate on storage back ends directly (no server involved): copy instances between them');
  storage.command('copy')
    .description('copy instances and everything they own (messages, chats, contacts, media, auth state, state, webhooks, event log) to another back end; '
      + 'refused while a server runs on either store: stop it first. Re-running converges (every write is an upsert)')
    .requiredOption('--from <endpoint>', `the source: ${ENDPOINT_HELP}`)
    .requiredOption('--to <endpoint>', 'the target, in the same forms as --from')
    .option('--instance <id...>', 'copy only these instances (ids); default: every instance and the server-wide state')
    .option('--batch <n>', 'items read per page (memory holds one page and at most one media blob at a time)', integer(1, 100_000), 500)
    .action(async (options: CopyOptions, command: Command) => {
      const json = command.optsWithGlobals<{ json?: boolean }>().json === true;
      const server = await serverModule('storage copy');
      type Opened = Awaited<ReturnType<typeof server.openStorage>>;
      const opened: Opened[] = [];
      try {
        const from = server.storageEndpoint(options.from, process.env, server.distribution());
        const to = server.storageEndpoint(options.to, process.env, server.distribution());
        if (JSON.stringify([from.plugins, from.dataDir]) === JSON.stringify([to.plugins, to.dataDir])) {
          throw new CliError('--from and --to name the same storage: nothing to copy', ExitCode.usage);
        }
        const progress = (line: string) => process.stderr.write(`${line}\n`);
        const logger = server.createLogger({ level: process.env.LOG_LEVEL ?? 'warn', format: 'json', destination: process.stderr }) as unknown as Parameters<typeof server.openStorage>[1];
        const source = await server.openStorage(from, logger);
        opened.push(source);
        const openTarget = async () => {
          const target = await server.openStorage(to, logger);
          opened.push(target);
          return target;
        };
        const summary = await server.copyStorage({ source, openTarget, batch: options.batch, progress, ...(options.instance ? { instances: options.instance } : {}) });
        emit({ json }, summary, () => describeSummary(summary));
      } catch (err) {
        if (err instanceof server.StorageCopyError) throw new CliError(err.message, err.reason === 'usage' ? ExitCode.usage : ExitCode.failed);
        throw err;
      } finally {
        for (const store of opened.reverse()) await store.close();
      }
    });
  return storage;
}
