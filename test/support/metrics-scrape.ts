import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { getMetricsFromIterator, type PromHistogramData, type PromMetric } from 'prom2javascript';

type Sample = { labels: Record<string, string>; value?: number; count?: number };

/** One scrape of `GET /metrics`, parsed by an independent Prometheus text-format parser. */
export class Scrape {
  private constructor(readonly text: string, readonly families: Map<string, PromMetric>) {}

  /**
   * prom2javascript rejects NaN, which the format allows and prom-client writes (`Nan`) for the
   * event-loop lag statistics when no loop-delay sample fell between two scrapes: those lines, and
   * only those, are left out of the parse.
   */
  static async parse(text: string): Promise<Scrape> {
    const lines = text.split('\n');
    const nan = lines.filter((line) => /^[^#].* Nan$/.test(line));
    assert.ok(nan.every((line) => line.startsWith('nodejs_eventloop_lag_')), nan.join('\n'));
    const families = await getMetricsFromIterator(lines.filter((line) => !nan.includes(line))[Symbol.iterator]());
    return new Scrape(text, new Map(Object.entries(families)));
  }

  family(name: string): PromMetric {
    const family = this.families.get(name);
    assert.ok(family, `metric ${name} is in the scrape`);
    return family;
  }

  /** Samples of `name` whose labels include `labels`. */
  samples(name: string, labels: Record<string, string> = {}): Sample[] {
    return (this.family(name).data as Sample[]).filter((m) => Object.entries(labels).every(([k, v]) => m.labels[k] === v));
  }

  /** A counter or gauge value (0 when no series has these labels yet), summed over the matching series. */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.samples(name, labels).reduce((sum, m) => sum + m.value!, 0);
  }

  /** A histogram's observation count over the matching series. */
  count(name: string, labels: Record<string, string> = {}): number {
    assert.equal(this.family(name).type, 'histogram', name);
    return (this.samples(name, labels) as PromHistogramData[]).reduce((sum, m) => sum + m.count, 0);
  }
}

/** docs/rest-api.md, whose Metrics table names every metric Parley exposes. */
const METRICS_DOC = new URL('../../../docs/rest-api.md', import.meta.url);

/** Asserts that each `parley_` metric of a scrape has its row in docs/rest-api.md's Metrics table. */
export function assertMetricsDocumented(scrape: Scrape): void {
  const doc = readFileSync(METRICS_DOC, 'utf8');
  const missing = [...scrape.families.keys()].filter((name) => name.startsWith('parley_') && !doc.includes(`| \`${name}\` |`));
  assert.deepEqual(missing, [], 'metrics without a row in the Metrics table of docs/rest-api.md');
}
