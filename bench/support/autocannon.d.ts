// The subset of autocannon's API the benchmarks use (it ships no types).
declare module 'autocannon' {
  export interface Histogram { average: number; p50: number; p90: number; p99: number; max: number; total: number }
  export interface Result { requests: Histogram; latency: Histogram; throughput: Histogram; non2xx: number; '2xx': number; errors: number; timeouts: number }
  export interface Options {
    url: string; method?: string; headers?: Record<string, string>; body?: string; connections?: number; duration?: number;
    amount?: number; pipelining?: number;
    /** Seconds before a request without an answer counts as an error (default 10). */
    timeout?: number;
    /** Request templates in turn; `setupRequest` may rewrite each request (its body) before it is sent. */
    requests?: { setupRequest?: (request: Record<string, unknown>) => Record<string, unknown> }[];
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
