import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { FastCounter, FastHistogram } from '../src/metrics/fast-metrics.js';

describe('FastHistogram and FastCounter', () => {
  it('write exactly what prom-client writes for its own histogram and counter: cumulative buckets, +Inf, sum, count, per series', async () => {
    const registry = new Registry();
    const h = new FastHistogram({ name: 'h_seconds', help: 'help of h', labelNames: ['method', 'route', 'status'], buckets: [0.5, 0.1], registry });
    const c = new FastCounter({ name: 'c_total', help: 'help of c', labelNames: ['kind'], registry });
    h.series('GET', '/a', 200).observe(0.05);
    h.series('GET', '/a', 200).observe(0.1);
    h.series('GET', '/a', 200).observe(0.3);
    h.series('GET', '/a', 500).observe(7);
    c.series('message').inc();
    c.series('message').inc(2);
    c.series('status').inc();
    assert.equal(h.series('GET', '/a', 200), h.series('GET', '/a', 200), 'a series is found again, not created');
    assert.equal(await registry.metrics(), [
      '# HELP h_seconds help of h',
      '# TYPE h_seconds histogram',
      'h_seconds_bucket{le="0.1",method="GET",route="/a",status="200"} 2',
      'h_seconds_bucket{le="0.5",method="GET",route="/a",status="200"} 3',
      'h_seconds_bucket{le="+Inf",method="GET",route="/a",status="200"} 3',
      'h_seconds_sum{method="GET",route="/a",status="200"} 0.45',
      'h_seconds_count{method="GET",route="/a",status="200"} 3',
      'h_seconds_bucket{le="0.1",method="GET",route="/a",status="500"} 0',
      'h_seconds_bucket{le="0.5",method="GET",route="/a",status="500"} 0',
      'h_seconds_bucket{le="+Inf",method="GET",route="/a",status="500"} 1',
      'h_seconds_sum{method="GET",route="/a",status="500"} 7',
      'h_seconds_count{method="GET",route="/a",status="500"} 1',
      '',
      '# HELP c_total help of c',
      '# TYPE c_total counter',
      'c_total{kind="message"} 3',
      'c_total{kind="status"} 1',
      '',
    ].join('\n'));
  });

  it('refuses a metric without labels or with more than three', () => {
    assert.throws(() => new FastCounter({ name: 'x', help: 'x', labelNames: [], registry: new Registry() }), /x: one to three labels/);
    assert.throws(() => new FastCounter({ name: 'y', help: 'y', labelNames: ['a', 'b', 'c', 'd'], registry: new Registry() }), /y: one to three labels/);
  });
});
