/**
 * Signal names a message by its author and its timestamp (Unix milliseconds); Parley ids are one
 * string: `<timestamp>.<author>`.
 */
export function messageIdOf(author: string, timestamp: number): string {
  return `${timestamp}.${author}`;
}

/** The author and timestamp of a message id made by {@link messageIdOf}, or undefined for another id. */
export function signalMessageOf(id: string): { author: string; timestamp: number } | undefined {
  const match = /^(\d+)\.(.+)$/.exec(id);
  return match ? { timestamp: Number(match[1]), author: match[2]! } : undefined;
}
