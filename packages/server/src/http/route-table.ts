import { ValidationError } from '@parley/core';
import type { HttpMethod } from './route.js';

/** A route ending at a node: its value and the names of its parameters, in path order. */
interface Leaf<T> {
  value: T;
  names: string[];
  /** Whether the parameters' raw values let the route match (see RouteDefinition.pathGuard). */
  accepts?: (values: string[]) => boolean;
}

/** One node of the path tree: static children by lower-cased segment, then one parameter child. */
interface Node<T> {
  statics: Map<string, Node<T>>;
  param?: Node<T>;
  /** What ends here, by method. */
  handlers: Map<HttpMethod, Leaf<T>>;
}

function node<T>(): Node<T> {
  return { statics: new Map(), handlers: new Map() };
}

/** A matched route: its value and its decoded path parameters. */
export interface RouteMatch<T> {
  value: T;
  params: Record<string, string>;
}

/**
 * Finds the route of a request by walking the path one segment at a time: a lookup per segment
 * instead of testing every registered route's pattern in turn (what express's router does, and
 * what cost most of its time with Parley's 150 routes). Matching follows express's defaults:
 * static segments are case-insensitive and win over a parameter at the same position (with
 * backtracking, so `/{key}/contacts/blocked` and `/{key}/contacts/{number}` both work); one trailing
 * slash is ignored; parameters are percent-decoded; HEAD is answered by the GET route.
 */
export class RouteTable<T> {
  private readonly root = node<T>();
  private readonly entries: string[] = [];

  /** Registers `value` for `method` on an OpenAPI path template (`/{key}/chat/{jid}`). Refuses duplicates. */
  add(method: HttpMethod, template: string, value: T, guard?: Record<string, RegExp>): void {
    let at = this.root;
    const names: string[] = [];
    for (const segment of template.split('/').slice(1)) {
      const param = /^\{([^}]+)\}$/.exec(segment)?.[1];
      if (param) {
        names.push(param);
        at = at.param ??= node<T>();
      } else {
        const key = segment.toLowerCase();
        let next = at.statics.get(key);
        if (!next) at.statics.set(key, (next = node<T>()));
        at = next;
      }
    }
    if (at.handlers.has(method)) throw new Error(`duplicate route ${method.toUpperCase()} ${template}`);
    const accepts = guard ? (values: string[]) => names.every((name, i) => guard[name]?.test(values[i]!) ?? true) : undefined;
    at.handlers.set(method, { value, names, ...(accepts ? { accepts } : {}) });
    this.entries.push(`${method.toUpperCase()} ${template}`);
  }

  /** Every registered route as `METHOD /template`, in registration order. */
  list(): string[] {
    return [...this.entries];
  }

  /**
   * The route for a request method and URL path (without the query), or undefined. Throws a 400
   * ValidationError when a parameter is not valid percent-encoding.
   */
  match(method: string, path: string): RouteMatch<T> | undefined {
    const wanted = (method === 'HEAD' ? 'get' : method.toLowerCase()) as HttpMethod;
    const segments = path.split('/');
    // "/a/b/" is "/a/b"; "/" has the single segment "".
    if (segments.length > 2 && segments[segments.length - 1] === '') segments.pop();
    const values: string[] = [];
    const found = this.walk(this.root, segments, 1, wanted, values);
    if (!found) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < found.names.length; i++) params[found.names[i]!] = decode(values[i]!, found.names[i]!);
    return { value: found.value, params };
  }

  /** Depth-first: a static segment before the parameter; `values` collects the parameters on the way. */
  private walk(at: Node<T>, segments: string[], index: number, method: HttpMethod, values: string[]): Leaf<T> | undefined {
    if (index === segments.length) {
      const leaf = at.handlers.get(method);
      return leaf && (!leaf.accepts || leaf.accepts(values)) ? leaf : undefined;
    }
    const segment = segments[index]!;
    const next = at.statics.get(segment) ?? at.statics.get(segment.toLowerCase());
    if (next) {
      const found = this.walk(next, segments, index + 1, method, values);
      if (found) return found;
    }
    if (at.param && segment !== '') {
      values.push(segment);
      const found = this.walk(at.param, segments, index + 1, method, values);
      if (found) return found;
      values.pop();
    }
    return undefined;
  }
}

/** A percent-decoded path parameter; 400 naming it when the encoding is broken. */
function decode(value: string, name: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw new ValidationError(`path.${name} is not valid percent-encoding`, { fields: [{ field: `path.${name}`, message: 'is not valid percent-encoding' }] });
  }
}
