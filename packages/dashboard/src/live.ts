import { useEffect, useRef } from 'preact/hooks';

/** One event of an instance (the native webhook envelope: `type`, `instance`, `data`). */
export interface LiveEvent {
  id?: string;
  type: string;
  instance?: string;
  data: Record<string, unknown>;
}

/** What a view keeps live. */
export interface LiveOptions {
  /** Event kinds the view shows (`qrcode`, `connection`, `message`, …). */
  types: readonly string[];
  /** Called with each event of those kinds, when the view uses the event itself (the QR image). */
  onEvent?: (event: LiveEvent) => void;
  /** Reloads the view's data through the API: after a matching event without `onEvent`, and every `pollMs`. */
  refresh: () => unknown;
  /** Polling period. */
  pollMs: number;
  /** False pauses the view (a hidden tab, nothing to watch). */
  enabled?: boolean;
}

/**
 * Keeps a view live by reloading it through the public API every `pollMs` (never two reloads at
 * once; paused while the browser tab is hidden, reloaded as soon as it is shown again).
 */
export function useLive(options: LiveOptions, deps: readonly unknown[]): void {
  const latest = useRef(options);
  latest.current = options;
  const enabled = options.enabled ?? true;
  useEffect(() => {
    if (!enabled) return;
    let busy = false;
    let stopped = false;
    const tick = async () => {
      if (busy || stopped || document.hidden) return;
      busy = true;
      try {
        await latest.current.refresh();
      } catch {
        // the view shows its own errors; the next tick tries again
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(tick, options.pollMs);
    const onVisible = () => void tick();
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      stopped = true;
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [enabled, options.pollMs, ...deps]);
}
