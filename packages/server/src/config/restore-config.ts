import { ConfigError } from './config-error.js';

/** How a node reconnects the instances it restores (after a restart, or taken over from another node). */
export interface RestoreConfig {
  /** Instances of one channel driver connecting at once. */
  concurrency: number;
  /** Connections started per second, by channel driver name (`whatsapp`, `sandbox`…), over the drivers' own defaults. */
  perSecond: Record<string, number>;
}

export const DEFAULT_RESTORE_CONCURRENCY = 64;
const MAX_PER_SECOND = 100_000;

/** JSON Schema of the config file's `restore` member. */
export const restoreSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    concurrency: { type: 'integer', minimum: 1, maximum: 10000 },
    perSecond: {
      type: 'object',
      propertyNames: { pattern: '^[a-z][a-z0-9-]*$' },
      additionalProperties: { type: 'integer', minimum: 1, maximum: MAX_PER_SECOND },
    },
  },
} as const;

/** `PARLEY_RESTORE_PER_SECOND`: `driver=count` pairs separated by commas (`whatsapp=2, sandbox=1000`). */
function envPerSecond(value: string | undefined): Record<string, number> | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const out: Record<string, number> = {};
  for (const pair of value.split(',')) {
    const m = /^\s*([a-z][a-z0-9-]*)\s*=\s*(\d+)\s*$/.exec(pair);
    const n = Number(m?.[2]);
    if (!m || n < 1 || n > MAX_PER_SECOND) {
      throw new ConfigError(`PARLEY_RESTORE_PER_SECOND must be driver=count pairs separated by commas (count 1 to ${MAX_PER_SECOND}), e.g. "whatsapp=2,sandbox=1000"; got "${pair.trim()}"`);
    }
    out[m[1]!] = n;
  }
  return out;
}

/** The restore settings: the variables win over the file, per driver for the rates. */
export function restoreConfig(env: NodeJS.ProcessEnv, file: Partial<RestoreConfig> | undefined): RestoreConfig {
  let concurrency = file?.concurrency ?? DEFAULT_RESTORE_CONCURRENCY;
  const raw = env.PARLEY_RESTORE_CONCURRENCY;
  if (raw !== undefined && raw !== '') {
    concurrency = Number(raw);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 10000) throw new ConfigError('PARLEY_RESTORE_CONCURRENCY must be an integer from 1 to 10000');
  }
  return { concurrency, perSecond: { ...file?.perSecond, ...envPerSecond(env.PARLEY_RESTORE_PER_SECOND) } };
}
