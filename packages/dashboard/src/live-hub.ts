/** One event of an instance, as the views use it (the native envelope's `type`, `instance` and `data`). */
export interface LiveEvent {
  id?: string;
  type: string;
  /** Public instance id. */
  instance?: string;
  data: Record<string, unknown>;
}

/** One frame of an event stream, as `streamEvents` of `@parley/client` yields it. */
export interface StreamFrame {
  id?: string;
  event: string;
  data: unknown;
}

/**
 * Opens the event stream, calling `onOpen` each time the server accepts it; the iterable ends or
 * throws when the stream is gone for good.
 */
export type EventSource = (signal: AbortSignal, onOpen: () => void) => AsyncIterable<StreamFrame>;

/** Whether events arrive as they happen (`streaming`), or the views poll the API (`polling`). */
export type LiveMode = 'streaming' | 'polling';

/** Pause before the hub opens the stream again after it ended or failed for good. */
const REOPEN_MS = 15_000;

type Listener = (event: LiveEvent) => void;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A frame as a {@link LiveEvent}. The admin stream wraps each event as `{instance, name, format,
 * payload}`; an instance stream sends the payload itself. The payload is the native envelope
 * (`{id, type, instance, provider, timestamp, data}`), which the hub asks for.
 */
export function toLiveEvent(frame: StreamFrame): LiveEvent | undefined {
  if (!isObject(frame.data)) return undefined;
  const outer = frame.data;
  const payload = isObject(outer.payload) ? outer.payload : outer;
  const type = typeof payload.type === 'string' ? payload.type : frame.event;
  const instance = typeof outer.instance === 'string' ? outer.instance : typeof payload.instance === 'string' ? payload.instance : undefined;
  return { id: frame.id, type, instance, data: isObject(payload.data) ? payload.data : payload };
}

/**
 * The dashboard's one event stream (the admin stream of every instance), shared by every view of the
 * tab: views subscribe by instance and event kind. While the stream is down the mode is `polling` and
 * the views reload through the API on a timer; the hub opens the stream again every {@link REOPEN_MS}.
 */
export class LiveHub {
  private readonly listeners = new Set<{ instance?: string; types: readonly string[]; fn: Listener }>();
  private readonly modeListeners = new Set<(mode: LiveMode) => void>();
  private controller?: AbortController;
  private timer?: ReturnType<typeof setTimeout>;
  mode: LiveMode = 'polling';

  constructor(private readonly source: EventSource | undefined) {}

  /** Opens the stream (nothing without a source: the views poll). */
  start(): void {
    if (!this.source || this.controller) return;
    const controller = new AbortController();
    this.controller = controller;
    void this.run(this.source, controller);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.controller?.abort();
    this.controller = undefined;
    this.setMode('polling');
  }

  /** Calls `fn` with each event of `types` (of one instance, by public id, when given). */
  subscribe(filter: { instance?: string; types: readonly string[] }, fn: Listener): () => void {
    const entry = { ...filter, fn };
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  onMode(fn: (mode: LiveMode) => void): () => void {
    this.modeListeners.add(fn);
    return () => this.modeListeners.delete(fn);
  }

  private async run(source: EventSource, controller: AbortController): Promise<void> {
    try {
      for await (const frame of source(controller.signal, () => this.setMode('streaming'))) {
        const event = toLiveEvent(frame);
        if (event) this.dispatch(event);
      }
    } catch {
      // the stream failed for good (the client already retried): poll until it is opened again
    }
    if (controller.signal.aborted) return;
    this.setMode('polling');
    this.controller = undefined;
    this.timer = setTimeout(() => this.start(), REOPEN_MS);
  }

  private dispatch(event: LiveEvent): void {
    for (const l of this.listeners) {
      // Events were lost (the stream was away longer than the log keeps): every view reloads.
      if (event.type === 'stream.gap') {
        l.fn(event);
        continue;
      }
      if ((l.instance === undefined || l.instance === event.instance) && l.types.includes(event.type)) l.fn(event);
    }
  }

  private setMode(mode: LiveMode): void {
    if (mode === this.mode) return;
    this.mode = mode;
    for (const fn of this.modeListeners) fn(mode);
  }
}
