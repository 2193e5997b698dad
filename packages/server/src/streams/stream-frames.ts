/** One message of an event stream: `data` is JSON text (sent as it is). */
export interface StreamFrame {
  /** The event id (a ULID), or absent for control messages (a gap), which must not move the client's position. */
  id?: string;
  /** The event kind (`message`, `message.status`, `qrcode`, …) or a control kind (`stream.gap`). */
  event: string;
  data: string;
}

/** Sent first when the position a client resumes from is older than the event log's retention. */
export const GAP_EVENT = 'stream.gap';

/** How frames are written on a wire: as SSE fields, or as one WebSocket text message. */
export type WireKind = 'sse' | 'ws';

/**
 * A frame as text on `wire`. SSE: `id:`, `event:` and one `data:` line (JSON text holds no raw line
 * breaks), then a blank line. WebSocket: `{"id","event","data"}` with `data` the JSON value itself.
 */
export function frameText(frame: StreamFrame, wire: WireKind): string {
  if (wire === 'sse') return `${frame.id === undefined ? '' : `id: ${frame.id}\n`}event: ${frame.event}\ndata: ${frame.data}\n\n`;
  return `{${frame.id === undefined ? '' : `"id":"${frame.id}",`}"event":${JSON.stringify(frame.event)},"data":${frame.data}}`;
}
