/** Message statuses as a person reads them: the REST record's (`DELIVERY_ACK`) and the events' (`delivered`). */
const WORDS: Record<string, string> = {
  PENDING: 'Queued',
  SERVER_ACK: 'Sent',
  DELIVERY_ACK: 'Delivered',
  READ: 'Read',
  PLAYED: 'Played',
  ERROR: 'Failed',
  sent: 'Sent',
  delivered: 'Delivered',
  read: 'Read',
  played: 'Played',
  failed: 'Failed',
};

/** Rank of each status word: a status shown never moves backwards (events may arrive out of order). */
const RANK: Record<string, number> = { Queued: 0, Sent: 1, Delivered: 2, Read: 3, Played: 4, Failed: 5 };

/** The status in words; an unknown status is shown as it is. */
export function statusWord(status: string | null | undefined): string {
  if (!status) return 'Unknown';
  return WORDS[status] ?? status;
}

/** The later of two status words. */
export function laterStatus(current: string, next: string): string {
  return (RANK[next] ?? 0) >= (RANK[current] ?? 0) ? next : current;
}
