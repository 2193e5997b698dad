import type { ConnectionStatus } from './api.js';

const LABELS: Record<ConnectionStatus, string> = {
  open: 'connected',
  connecting: 'connecting',
  waiting_for_qr_scan: 'waiting for QR scan',
  waiting_for_pairing_code: 'waiting for pairing code',
  disconnected: 'disconnected',
  stopped: 'stopped',
};

/** The connection state as text (colour only repeats what the words say). */
export function StateBadge(props: { status: ConnectionStatus | undefined }) {
  const status = props.status;
  return <span class={`badge state-${status ?? 'unknown'}`} data-state={status ?? 'unknown'}>{status ? LABELS[status] : 'unknown'}</span>;
}

/**
 * The instance's health as the page shows it, in agreement with its connection: the account's health
 * (`healthy`, `restricted`) only while it is connected; otherwise offline, with the state it is in.
 */
export function healthText(status: ConnectionStatus | undefined, health: string | null | undefined): string {
  if (status === undefined) return health ?? '—';
  if (status !== 'open') return `offline (${LABELS[status]})`;
  return health ?? 'healthy';
}

/** The health cell or fact: coloured as an error while offline or restricted. */
export function HealthText(props: { id?: string; status: ConnectionStatus | undefined; health: string | null | undefined }) {
  const text = healthText(props.status, props.health);
  const bad = text.startsWith('offline') || text === 'restricted';
  return <span id={props.id} class={`health${bad ? ' health-bad' : ''}`}>{text}</span>;
}
