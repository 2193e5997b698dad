/** A moment (ms since the epoch) as the browser's locale writes it; — when unknown. */
export function when(ms: number | undefined): string {
  return ms ? new Date(ms).toLocaleString() : '—';
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [['day', 86_400], ['hour', 3600], ['minute', 60], ['second', 1]];

/** How long before `now` a moment was, in the browser's language ("5 seconds ago", "now"); a moment ahead of `now` (another clock) counts as now. */
export function ago(ms: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  const [unit, size] = UNITS.find(([, s]) => seconds >= s) ?? ['second', 1];
  return new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }).format(-Math.floor(seconds / size), unit);
}
