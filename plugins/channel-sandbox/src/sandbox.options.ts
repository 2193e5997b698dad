/** Options of the sandbox channel plugin. */
export interface SandboxOptions {
  /** Scan the QR automatically this many ms after it is shown (0 = only through the scan route). */
  autoScanMs: number;
  /** A new QR every this many ms while waiting for a scan. */
  qrRefreshMs: number;
  /** QR refreshes before the attempt ends with a `close` (code 408). */
  maxQrRefreshes: number;
  /** Simulated network latency of each hop (message, receipt), in ms. */
  latencyMs: number;
  /** An unanswered call stops ringing after this many ms (status `timeout` on both phones). */
  callRingMs: number;
  /** A mobile registration code expires this many ms after it was requested. */
  mobileCodeTtlMs: number;
  /** At least this many ms between two mobile registration code requests of one phone. */
  mobileCodeIntervalMs: number;
  /**
   * On a network that spans processes (a storage with signals), every online phone's inbox is read
   * again this often (ms), so a packet whose wake-up was lost (its sender's process lost Redis, or
   * died, right after writing it) still arrives.
   */
  inboxRecheckMs: number;
}

export const defaultSandboxOptions: SandboxOptions = { autoScanMs: 0, qrRefreshMs: 20_000, maxQrRefreshes: 5, latencyMs: 0, callRingMs: 45_000,
  mobileCodeTtlMs: 600_000, mobileCodeIntervalMs: 60_000, inboxRecheckMs: 5_000,
};

export const sandboxOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    autoScanMs: { type: 'integer', minimum: 0, maximum: 600000, default: defaultSandboxOptions.autoScanMs },
    qrRefreshMs: { type: 'integer', minimum: 100, maximum: 600000, default: defaultSandboxOptions.qrRefreshMs },
    maxQrRefreshes: { type: 'integer', minimum: 0, maximum: 100, default: defaultSandboxOptions.maxQrRefreshes },
    latencyMs: { type: 'integer', minimum: 0, maximum: 60000, default: defaultSandboxOptions.latencyMs },
    callRingMs: { type: 'integer', minimum: 100, maximum: 600000, default: defaultSandboxOptions.callRingMs },
    mobileCodeTtlMs: { type: 'integer', minimum: 100, maximum: 86400000, default: defaultSandboxOptions.mobileCodeTtlMs },
    mobileCodeIntervalMs: { type: 'integer', minimum: 0, maximum: 3600000, default: defaultSandboxOptions.mobileCodeIntervalMs },
    inboxRecheckMs: { type: 'integer', minimum: 1000, maximum: 3600000, default: defaultSandboxOptions.inboxRecheckMs },
  },
} as const;
