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
