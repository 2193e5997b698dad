import type { ReadResourceResult, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { ProtocolCode, ProtocolError } from './protocol-error.js';
import type { ChannelEvent } from '@parley/core';
import type { Principal } from '../app/credential.js';
import type { RouteDefinition } from '../http/route.js';
import type { KeyOfInstance } from './mcp-tools.js';
import type { RouteCaller } from './route-caller.js';

const SCHEME = 'parley://instances/';
/** Most chats whose messages resource `resources/list` names (the most recent ones). */
const LISTED_CHATS = 50;
/** Most resources one session may be subscribed to. */
export const MAX_SUBSCRIPTIONS = 200;

/** A parsed resource URI: an instance's chat list, or one chat's latest messages. */
type Target = { instance: string; jid?: string };

/** The URI of an instance's chat list, or of a chat's messages (the chat id percent-encoded, as one segment). */
export function resourceUri(instance: string, jid?: string): string {
  return `${SCHEME}${encodeURIComponent(instance)}/chats${jid === undefined ? '' : `/${encodeURIComponent(jid)}/messages`}`;
}

function parse(uri: string): Target | undefined {
  if (!uri.startsWith(SCHEME)) return undefined;
  const parts = uri.slice(SCHEME.length).split('/');
  try {
    if (parts.length === 2 && parts[1] === 'chats') return { instance: decodeURIComponent(parts[0]!) };
    if (parts.length === 4 && parts[1] === 'chats' && parts[3] === 'messages' && parts[2]) return { instance: decodeURIComponent(parts[0]!), jid: decodeURIComponent(parts[2]) };
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * The resources an event changes, as canonical URIs: a message, a status, a deletion change its chat's
 * messages and the chat list (last message, unread count); chat updates change the list.
 */
export function changedBy(event: ChannelEvent): string[] {
  const chats = resourceUri(event.instance);
  switch (event.type) {
    case 'message': return [chats, resourceUri(event.instance, event.message.chatJid)];
    case 'message.status':
    case 'message.delete': return [chats, resourceUri(event.instance, event.chatJid)];
    case 'history': return [chats, ...new Set(event.messages.map((m) => resourceUri(event.instance, m.key.remoteJid)))];
    case 'chats.upsert':
    case 'chats.delete': return [chats];
    default: return [];
  }
}

/** What resources read through: the REST operations of chats and messages. */
export interface ResourceRoutes {
  listChats: RouteDefinition;
  listChatMessages: RouteDefinition;
}

/**
 * The resources of one session: an instance's chats (`parley://instances/{id}/chats`) and a chat's
 * latest messages (`…/chats/{chat id}/messages`), read through the REST operations. An instance key
 * reaches its own instance's only; the admin's, every instance's. Subscriptions are kept by
 * canonical URI, at most {@link MAX_SUBSCRIPTIONS}.
 */
export class SessionResources {
  private readonly subscribed = new Set<string>();

  constructor(
    private readonly routes: () => ResourceRoutes,
    private readonly principal: Principal,
    private readonly caller: RouteCaller,
    private readonly keyOf: KeyOfInstance,
  ) {}

  /** An instance key's session lists its chat list and its most recent chats; the admin uses the templates. */
  async list(): Promise<Resource[]> {
    if (this.principal.kind !== 'instance') return [];
    const { id, key } = this.principal;
    const chats = await this.chats(key);
    return [
      { uri: resourceUri(id), name: 'chats', title: 'Chats, most recent first', mimeType: 'application/json' },
      ...chats.slice(0, LISTED_CHATS).map((chat) => ({
        uri: resourceUri(id, chat.id), name: `messages of ${chat.id}`, title: `Messages of ${chat.name || chat.id}`, mimeType: 'application/json',
      })),
    ];
  }

  templates(): ResourceTemplate[] {
    return [
      { uriTemplate: `${SCHEME}{instance}/chats`, name: 'chats', title: 'An instance\'s chats, most recent first', mimeType: 'application/json' },
      { uriTemplate: `${SCHEME}{instance}/chats/{chat}/messages`, name: 'chat messages', title: 'The latest messages of a chat (the chat id percent-encoded)', mimeType: 'application/json' },
    ];
  }

  async read(uri: string): Promise<ReadResourceResult> {
    const { target, key, canonical } = await this.resolve(uri);
    const route = target.jid === undefined ? this.routes().listChats : this.routes().listChatMessages;
    const path = target.jid === undefined ? route.path : route.path.replace('{jid}', encodeURIComponent(target.jid));
    const answer = await this.caller.call(route, key, { path, query: {} });
    if (answer.status !== 200) throw new ProtocolError(ProtocolCode.InvalidParams, `${uri}: ${JSON.stringify(answer.body.error ?? answer.body)}`);
    return { contents: [{ uri: canonical, mimeType: 'application/json', text: JSON.stringify(answer.body.data) }] };
  }

  /**
   * Subscribes to a resource. A chat's messages resource names the chat by its id as the chat list
   * answers it: the read takes a phone number too (as the REST path does), but events name chats by
   * id, so a subscription by anything else would never be told; it is refused (resource not found)
   * saying so, as is a chat the instance does not have yet (the chat list's update tells of it).
   */
  async subscribe(uri: string): Promise<void> {
    const { target, key, canonical } = await this.resolve(uri);
    if (target.jid !== undefined && !(await this.chats(key)).some((chat) => chat.id === target.jid)) {
      throw new ProtocolError(ProtocolCode.ResourceNotFound, `${uri.slice(0, 300)}: the instance has no chat of id ${target.jid.slice(0, 128)}; `
        + 'subscribe by a chat id as the chats resource lists it (subscribe to the chats resource to hear of new chats)', { uri: uri.slice(0, 300) });
    }
    if (!this.subscribed.has(canonical) && this.subscribed.size >= MAX_SUBSCRIPTIONS) {
      throw new ProtocolError(ProtocolCode.InvalidRequest, `at most ${MAX_SUBSCRIPTIONS} subscriptions per session: unsubscribe from one first`);
    }
    this.subscribed.add(canonical);
  }

  async unsubscribe(uri: string): Promise<void> {
    const target = parse(uri);
    if (target) this.subscribed.delete(resourceUri(target.instance, target.jid));
  }

  /** Whether the session holds any subscription. */
  subscribing(): boolean {
    return this.subscribed.size > 0;
  }

  /** Every subscribed URI. */
  subscriptions(): string[] {
    return [...this.subscribed];
  }

  /** The subscribed URIs among `uris`. */
  watched(uris: readonly string[]): string[] {
    return uris.filter((uri) => this.subscribed.has(uri));
  }

  /** The chats of the instance of `key` (none when the list cannot be read). */
  private async chats(key: string): Promise<{ id: string; name?: string }[]> {
    const answer = await this.caller.call(this.routes().listChats, key, { path: this.routes().listChats.path, query: {} });
    return answer.status === 200 ? (answer.body.data as { id: string; name?: string }[]) : [];
  }

  /** The resource a URI names, and the key to read it with; an unknown or foreign one is refused alike (no instance's existence leaks). */
  private async resolve(uri: string): Promise<{ target: Target; key: string; canonical: string }> {
    const target = parse(uri);
    const unknown = () => new ProtocolError(ProtocolCode.ResourceNotFound, `unknown resource ${uri.slice(0, 300)}`, { uri: uri.slice(0, 300) });
    if (!target) throw unknown();
    let key: string | undefined;
    if (this.principal.kind === 'instance') key = target.instance === this.principal.id ? this.principal.key : undefined;
    else key = await this.keyOf(target.instance);
    if (key === undefined) throw unknown();
    return { target, key, canonical: resourceUri(target.instance, target.jid) };
  }
}
