import { useEffect, useRef, useState } from 'preact/hooks';
import { useSession } from './context.js';
import type { LiveEvent, LiveHub, LiveMode } from './live-hub.js';

export type { LiveEvent } from './live-hub.js';

/** What a view keeps live. */
export interface LiveOptions {
  /** Public id of the instance the view shows; every instance when absent. */
  instance?: string;
  /** Event kinds that change what the view shows (`qrcode`, `connection`, `message`, …); none: the view only polls. */
  types: readonly string[];
  /** Called with each event of those kinds, when the view uses the event itself (the QR image). */
  onEvent?: (event: LiveEvent) => void;
  /** Reloads the view's data through the API: after a matching event without `onEvent`, and on a timer. */
  refresh: () => unknown;
  /** Reload period while events do not stream (and always for a view without event kinds). */
  pollMs: number;
  /** False pauses the view. */
  enabled?: boolean;
}

/** While events stream, views with event kinds still reload this often (what no event announces). */
const STREAMING_POLL_MS = 15_000;
/** Events arriving together cause one reload. */
const DEBOUNCE_MS = 100;

/** The mode of the session's event stream, re-rendering on changes. */
export function useLiveMode(): LiveMode {
  const { live } = useSession();
  const [mode, setMode] = useState(live.mode);
  useEffect(() => live.onMode(setMode), [live]);
  return mode;
}

/** Runs `tick` every `ms` (never two at once; skipped while the tab is hidden, run when it is shown). */
function usePoll(tick: () => unknown, ms: number, enabled: boolean): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!enabled) return;
    let busy = false;
    const run = async () => {
      if (busy || document.hidden) return;
      busy = true;
      try {
        await latest.current();
      } catch {
        // the view shows its own errors; the next tick tries again
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(run, ms);
    document.addEventListener('visibilitychange', run);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', run);
    };
  }, [ms, enabled]);
}

/** Subscribes to the hub's events of the view; without `onEvent`, a burst of events causes one refresh. */
function useEvents(live: LiveHub, options: LiveOptions, enabled: boolean): void {
  const latest = useRef(options);
  latest.current = options;
  const types = options.types.join(',');
  useEffect(() => {
    if (!enabled || !types) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = live.subscribe({ instance: options.instance, types: types.split(',') }, (event) => {
      if (latest.current.onEvent && event.type !== 'stream.gap') latest.current.onEvent(event);
      else {
        clearTimeout(timer);
        timer = setTimeout(() => void latest.current.refresh(), DEBOUNCE_MS);
      }
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }, [live, options.instance, types, enabled]);
}

/**
 * Keeps a view live: through the session's event stream when it streams (each event of the view's
 * kinds is handed to `onEvent` or reloads the view; a slow reload catches what no event announces),
 * and by reloading through the public API every `pollMs` when it does not.
 */
export function useLive(options: LiveOptions): void {
  const { live } = useSession();
  const mode = useLiveMode();
  const enabled = options.enabled ?? true;
  const streaming = mode === 'streaming' && options.types.length > 0;
  useEvents(live, options, enabled);
  usePoll(options.refresh, streaming ? STREAMING_POLL_MS : options.pollMs, enabled);
  // Events may have been missed while the stream was down: reload once it streams again.
  const previous = useRef(mode);
  useEffect(() => {
    if (previous.current !== mode && mode === 'streaming' && enabled) void options.refresh();
    previous.current = mode;
  }, [mode]);
}
