import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, StreamReply, type RouteDefinition } from '../http/route.js';
import { s } from '../http/schema.js';
import { keyParams } from '../schemas/common.schemas.js';
import { readStreamRequest } from '../streams/stream-request.js';
import { SseTransport } from '../streams/stream-transport.js';

const tag = 'Events';

const streamQuery = s.object({
  after: s.string({
    pattern: '^[0-7][0-9A-HJKMNP-TV-Z]{25}$',
    description: 'Resume after this event id, for clients that cannot set `Last-Event-ID` (the header wins when both are sent).',
  }),
  format: s.string({ minLength: 1, maxLength: 64, description: 'A registered webhook format (`native`, `meta`, …); the instance\'s own format by default.' }),
});

const FRAMES = 'Each event is `id: <event id>`, `event: <kind>`, `data: <JSON>`. Resume with the `Last-Event-ID` header (or `?after=`): '
  + 'every event after that id is replayed from the event log, then live ones follow, each exactly once. A position older than the '
  + 'retention first gets a `stream.gap` event (no id). Heartbeats are comment lines. The same path upgrades to a WebSocket '
  + '(`{"id","event","data"}` text messages, ping/pong heartbeats). See docs/events.md.';

/** Milliseconds an EventSource waits before reconnecting (the `retry:` field). */
const RETRY_MS = 2000;

/** `GET /{key}/events` and `GET /admin/events`: Server-Sent Events of one instance, or of all (docs/events.md). */
export function eventRoutes(ctx: ServerContext): RouteDefinition[] {
  const formats = new Set(ctx.formats.keys());
  return [
    defineRoute<unknown, Record<string, unknown>, unknown, InstanceRuntime>({
      method: 'get', path: '/{key}/events', operationId: 'instanceEvents', tag, auth: 'instance', params: keyParams, query: streamQuery,
      summary: 'Live events of the instance (Server-Sent Events, or WebSocket on upgrade)',
      description: `The instance's events in its webhook format (or \`?format=\`): the same body a webhook of that format receives. ${FRAMES}`,
      response: { text: 'text/event-stream' }, errors: [429],
      handler: async ({ scope, query, req }) => {
        const request = readStreamRequest(query, req.headers['last-event-id'], formats);
        const slot = ctx.streams.reserve(scope.id);
        return new StreamReply((_req, res) => ctx.streams.open(slot, new SseTransport(res, RETRY_MS), { admin: false, ...(request.format ? { format: request.format } : {}) }, request.after));
      },
    }),
    defineRoute<unknown, Record<string, unknown>, unknown, undefined>({
      method: 'get', path: '/admin/events', operationId: 'adminEvents', tag, auth: 'admin', query: streamQuery,
      summary: 'Live events of every instance (Server-Sent Events, or WebSocket on upgrade)',
      description: `Every instance's events, each \`data\` being \`{"instance": <id>, "name", "format", "payload": <the body in that format>}\`. ${FRAMES} `
        + 'On a cluster node it also carries node events without an id (`cluster.node.joined`, `cluster.node.left`, `cluster.node.dead`, '
        + 'data `{"node", "address", "at"}`), each once per stream, live only (never replayed). See docs/cluster.md.',
      response: { text: 'text/event-stream' }, errors: [429],
      handler: async ({ query, req }) => {
        const request = readStreamRequest(query, req.headers['last-event-id'], formats);
        const slot = ctx.streams.reserve(undefined);
        return new StreamReply((_req, res) => ctx.streams.open(slot, new SseTransport(res, RETRY_MS), { admin: true, ...(request.format ? { format: request.format } : {}) }, request.after));
      },
    }),
  ];
}
