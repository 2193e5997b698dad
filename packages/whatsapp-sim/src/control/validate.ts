import { SimError } from '../network/errors.js';

/** What every control route has: a path pattern (its groups are the params) and what it does. */
interface RouteBase {
  pattern: RegExp;
  handle(params: string[], body: Record<string, unknown>, query?: URLSearchParams): Promise<{ status: number; body?: unknown }> | { status: number; body?: unknown };
}

/**
 * The top-level body members a POST route takes (README "Control API"), or a function of the route's
 * params answering them (a message kind's members). Any other member is refused before the route runs
 * ({@link refuseUnknown}), as Parley refuses a member it does not document.
 */
export type Members = readonly string[] | ((params: string[]) => readonly string[]);

/** One control route: GET and DELETE take no body; a POST names the body members it takes. */
export type Route = (RouteBase & { method: 'GET' | 'DELETE' }) | (RouteBase & { method: 'POST'; members: Members });

/**
 * Refuses a body with members outside `members`: 400 `validation_failed` naming each (`body.<name> is not
 * allowed`, Parley's wording), so a misspelt member (`pushname`, `durationMS`) changes nothing instead of
 * being ignored.
 */
export function refuseUnknown(members: readonly string[], body: Body): void {
  const unknown = Object.keys(body).filter((name) => !members.includes(name)).map((name) => `body.${name}`);
  if (unknown.length === 0) return;
  throw new SimError(400, 'invalid_request', `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not allowed`, { field: unknown });
}

/** A control request's JSON body. */
export type Body = Record<string, unknown>;

export function field(body: Body, name: string, type: 'string' | 'number' | 'boolean', required: boolean): unknown {
  const value = body[name];
  if (value === undefined || value === null) {
    if (required) throw new SimError(400, 'invalid_request', `${name} is required`, { field: name });
    return undefined;
  }
  if (typeof value !== type) throw new SimError(400, 'invalid_request', `${name} must be a ${type}`, { field: name });
  return value;
}
export const text = (body: Body, name: string): string => field(body, name, 'string', true) as string;
export const optionalText = (body: Body, name: string): string | undefined => field(body, name, 'string', false) as string | undefined;

export function numbers(body: Body, name: string): string[] {
  const value = body[name];
  if (!Array.isArray(value) || value.length > 1024 || !value.every((x) => typeof x === 'string')) {
    throw new SimError(400, 'invalid_request', `${name} must be an array of at most 1024 numbers (strings)`, { field: name });
  }
  return value as string[];
}

export function integer(value: unknown, name: string, required = true): number | undefined {
  if (value === undefined && !required) return undefined;
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number)) throw new SimError(400, 'invalid_request', `${name} must be an integer`, { field: name });
  return number;
}

export const ok = (body: unknown) => ({ status: 200, body });
export const NUMBER = '([^/]+)';

