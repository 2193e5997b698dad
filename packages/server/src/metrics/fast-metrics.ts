import type { Registry } from 'prom-client';

/** One labelled series of a {@link FastHistogram}: observing is a bucket search and three additions. */
export class HistogramSeries {
  /** Observations per bucket (not cumulative; cumulated when scraped). */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly labels: Readonly<Record<string, string>>, private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    if (i < bounds.length) this.counts[i]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

/** One labelled series of a {@link FastCounter}. */
export class CounterSeries {
  value = 0;
  constructor(readonly labels: Readonly<Record<string, string>>) {}

  inc(by = 1): void {
    this.value += by;
  }
}

/** A value prom-client's registry formats: one line of the text format. */
interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** Name, help, label names (one to three) and the registry a metric is scraped from. */
export interface MetricOptions {
  name: string;
  help: string;
  labelNames: readonly string[];
  registry: Registry;
}

/**
 * Series by label values, found through one map per label (no key string is built): the request
 * path and the storage decorator look a series up, or keep it, without allocating.
 */
abstract class FastMetric<S extends { labels: Readonly<Record<string, string>> }> {
  readonly aggregator = 'sum';
  private readonly tree = new Map<string | number, unknown>();
  protected readonly all: S[] = [];

  readonly name: string;
  readonly help: string;
  private readonly labelNames: readonly string[];

  constructor(options: MetricOptions) {
    if (options.labelNames.length < 1 || options.labelNames.length > 3) throw new Error(`${options.name}: one to three labels`);
    ({ name: this.name, help: this.help, labelNames: this.labelNames } = options);
    // prom-client formats any metric object with name, help, type and get() (its own collectors are such objects).
    options.registry.registerMetric(this as never);
  }

  /**
   * The series of these label values (in `labelNames` order), created on first use. A number (an
   * HTTP status) is its own map key, so a lookup converts nothing.
   */
  series(a: string, b?: string, c?: string | number): S {
    const n = this.labelNames.length;
    let level = this.tree;
    for (let i = 0; i < n - 1; i++) {
      const value = i === 0 ? a : b;
      let next = level.get(value!) as Map<string | number, unknown> | undefined;
      if (!next) level.set(value!, (next = new Map()));
      level = next;
    }
    const last = n === 1 ? a : n === 2 ? b! : c!;
    let series = level.get(last) as S | undefined;
    if (!series) {
      const values = [a, b, c];
      series = this.create(Object.fromEntries(this.labelNames.map((name, i) => [name, String(values[i])])));
      level.set(last, series);
      this.all.push(series);
    }
    return series;
  }

  protected abstract create(labels: Record<string, string>): S;
}

/**
 * A Prometheus histogram registered in a prom-client {@link Registry}. prom-client's own histogram
 * hashes the label values and validates them on every observation, even through a `labels()` child;
 * this one keeps plain counters per series, cumulated into buckets only when scraped.
 */
export class FastHistogram extends FastMetric<HistogramSeries> {
  readonly type = 'histogram';
  private readonly buckets: readonly number[];

  constructor(options: MetricOptions & { buckets: readonly number[] }) {
    super(options);
    this.buckets = [...options.buckets].sort((x, y) => x - y);
  }

  protected create(labels: Record<string, string>): HistogramSeries {
    return new HistogramSeries(labels, this.buckets);
  }

  /** What prom-client's registry formats: `_bucket` lines (cumulative, `le`), `_sum` and `_count` per series. */
  get(): { name: string; help: string; type: string; aggregator: string; values: Sample[] } {
    const values: Sample[] = [];
    for (const series of this.all) {
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += series.counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound, ...series.labels }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...series.labels }, value: series.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...series.labels }, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...series.labels }, value: series.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/** A Prometheus counter registered in a prom-client {@link Registry}, incremented without allocating (see {@link FastHistogram}). */
export class FastCounter extends FastMetric<CounterSeries> {
  readonly type = 'counter';

  protected create(labels: Record<string, string>): CounterSeries {
    return new CounterSeries(labels);
  }

  get(): { name: string; help: string; type: string; aggregator: string; values: Sample[] } {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.all.map((s) => ({ labels: { ...s.labels }, value: s.value })) };
  }
}
