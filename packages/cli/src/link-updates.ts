import { setTimeout as sleep } from 'node:timers/promises';
import type { InstanceClient } from '@parley/client';

/** What `connect` learns about an instance being linked. */
export type LinkUpdate =
  | { kind: 'qrcode'; qrcode: string; image: string }
  | { kind: 'waiting'; status: string; lastError?: string }
  | { kind: 'linked'; user: unknown }
  | { kind: 'stopped'; reason: string };

/** The interval between two polls of the instance while `connect` waits for the link. */
export const POLL_INTERVAL_MS = 1_000;

/** Sleeps one poll interval, or until the deadline; false once the deadline has passed. */
async function pause(deadline: number, intervalMs: number): Promise<boolean> {
  const left = deadline - performance.now();
  if (left <= 0) return false;
  await sleep(Math.min(intervalMs, left));
  return true;
}

function stoppedReason(connection: { failure?: { code: number; reason: string; attempts: number }; lastError?: { message: string } } | undefined): string {
  const failure = connection?.failure;
  if (failure) return `${failure.reason} (code ${failure.code}) after ${failure.attempts} attempts`;
  return connection?.lastError?.message ?? 'the channel stopped trying';
}

/**
 * QR updates by polling `POST /{key}/instance` every `intervalMs` until the deadline: the call is
 * idempotent while a code is waiting (it answers the current one; each channel replaces its code on
 * its own schedule, which the next poll picks up) and starts a new attempt when the last one ended,
 * so codes keep coming until the phone scans one. Ends after `linked`.
 */
export async function* pollQrUpdates(api: InstanceClient, deadline: number, intervalMs = POLL_INTERVAL_MS): AsyncGenerator<LinkUpdate> {
  do {
    const answer = await api.call('connectInstance');
    if (answer.phoneConnected) {
      yield { kind: 'linked', user: answer.user };
      return;
    }
    if (answer.connection.status === 'stopped') yield { kind: 'stopped', reason: stoppedReason(answer.connection) };
    else if (answer.qrcode) yield { kind: 'qrcode', qrcode: answer.qrcode, image: answer.image };
    else yield { kind: 'waiting', status: answer.connection.status, ...(answer.connection.lastError ? { lastError: answer.connection.lastError.message } : {}) };
  } while (await pause(deadline, intervalMs));
}

/** Link updates after a pairing code was issued: polls `GET /{key}/instance` until linked or the deadline. */
export async function* pollPairingUpdates(api: InstanceClient, deadline: number, intervalMs = POLL_INTERVAL_MS): AsyncGenerator<LinkUpdate> {
  do {
    const { instance } = await api.call('getInstance');
    if (instance.phoneConnected) {
      yield { kind: 'linked', user: instance.user };
      return;
    }
    if (instance.connection?.status === 'stopped') yield { kind: 'stopped', reason: stoppedReason(instance.connection) };
    else yield { kind: 'waiting', status: instance.connection?.status ?? 'connecting' };
  } while (await pause(deadline, intervalMs));
}
