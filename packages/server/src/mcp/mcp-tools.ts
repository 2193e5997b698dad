import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ProtocolCode, ProtocolError } from './protocol-error.js';
import { isParleyError } from '@parley/core';
import type { Principal } from '../app/credential.js';
import type { RouteAnswer, RouteCaller } from './route-caller.js';
import { INSTANCE_ARGUMENT, type DerivedTool } from './tool-schema.js';

/** The REST request's places, which argument names leave out: `body.to` is the argument `to`. */
const PLACES = /\b(?:body|path|query)\.(?=[\w[])/g;

/** Finds the key of an instance an admin session names (undefined when there is none). */
export type KeyOfInstance = (id: string) => Promise<string | undefined>;

/** A refused argument as MCP answers it: `InvalidParams` naming the argument, the fields in `data`. */
function invalidArguments(message: string, fields: { field: string; message: string }[]): ProtocolError {
  return new ProtocolError(ProtocolCode.InvalidParams, message, { fields });
}

/** The REST validation answer of a route, worded for the tool's arguments. */
function asArguments(answer: RouteAnswer): ProtocolError {
  const error = answer.body.error as { message?: string; details?: { fields?: { field: string; message: string }[] } } | undefined;
  const rename = (text: string) => text.replace(PLACES, '').replace(/^body\b/, 'arguments');
  const fields = (error?.details?.fields ?? []).map((f) => ({ field: rename(f.field), message: rename(f.message) }));
  return invalidArguments(rename(error?.message ?? 'invalid arguments'), fields);
}

/** A tool's answer: the REST answer as JSON text and structured content, a QR code also as an image. */
function result(answer: RouteAnswer): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(answer.body) }];
  const image = typeof answer.body.image === 'string' ? /^data:(image\/png);base64,(.+)$/.exec(answer.body.image) : null;
  if (image) content.push({ type: 'image', mimeType: image[1]!, data: image[2]! });
  return { content, structuredContent: answer.body, ...(answer.status >= 400 ? { isError: true } : {}) };
}

/**
 * The tools of one session: an instance key's act on its instance; the admin's take the instance as
 * the `instance` argument. A call is the REST call of the tool's route (see {@link RouteCaller}).
 * Arguments the route refuses (400) answer an MCP `InvalidParams` error naming them; every other
 * failure (404, 409 not connected, 422, 429 queue full, …) is a tool result with `isError` and the
 * REST error body, so the agent reads what went wrong.
 */
export class SessionTools {
  constructor(
    private readonly tools: () => Map<string, DerivedTool>,
    private readonly principal: Principal,
    private readonly caller: RouteCaller,
    private readonly keyOf: KeyOfInstance,
  ) {}

  list(): Tool[] {
    return [...this.tools().values()].map((tool) => ({
      name: tool.spec.name,
      title: tool.spec.title,
      description: tool.inputSchema.description as string,
      inputSchema: this.principal.kind === 'admin' ? withInstance(tool.inputSchema) : tool.inputSchema as Tool['inputSchema'],
      annotations: { title: tool.spec.title, ...tool.spec.annotations },
    }));
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    const tool = this.tools().get(name);
    if (!tool) throw new ProtocolError(ProtocolCode.InvalidParams, `unknown tool ${name}`);
    const { key, rest } = await this.instanceOf(args);
    let request;
    try {
      request = tool.request(rest);
    } catch (err) {
      if (isParleyError(err) && err.status === 400) throw invalidArguments(err.message, (err.details as { fields?: { field: string; message: string }[] }).fields ?? []);
      throw err;
    }
    const answer = await this.caller.call(tool.route, key, request);
    if (answer.status === 400) throw asArguments(answer);
    return result(answer);
  }

  /** The key a call acts with, and its arguments without the admin's `instance`. */
  private async instanceOf(args: Record<string, unknown>): Promise<{ key: string; rest: Record<string, unknown> }> {
    if (this.principal.kind === 'instance') return { key: this.principal.key, rest: args };
    const { [INSTANCE_ARGUMENT]: id, ...rest } = args;
    const refuse = (message: string) => invalidArguments(`${INSTANCE_ARGUMENT} ${message}`, [{ field: INSTANCE_ARGUMENT, message: `${INSTANCE_ARGUMENT} ${message}` }]);
    if (id === undefined) throw refuse('is required');
    if (typeof id !== 'string') throw refuse('must be string');
    const key = await this.keyOf(id);
    if (key === undefined) throw refuse(`names no instance (${JSON.stringify(id.slice(0, 64))})`);
    return { key, rest };
  }
}

/** An admin session's input schema: the route's arguments plus the required `instance`. */
function withInstance(schema: Record<string, unknown>): Tool['inputSchema'] {
  const properties = { [INSTANCE_ARGUMENT]: { type: 'string', minLength: 1, maxLength: 64, description: 'Id of the instance to act on (`GET /admin/instances` lists them).' }, ...(schema.properties as object) };
  return { ...schema, type: 'object', properties, required: [INSTANCE_ARGUMENT, ...((schema.required as string[] | undefined) ?? [])] };
}
