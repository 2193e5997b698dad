import { startTestServer, type TestServer, type TestServerOptions } from './test-server.js';

/** A connected sandbox instance as tests hold it. */
export interface Phone {
  id: string;
  key: string;
  number: string;
}

/** Creates and connects a sandbox instance with a fixed number. */
export async function phone(t: TestServer, name: string, number: string): Promise<Phone> {
  const instance = await t.connectedSandbox({ name, number });
  return { id: instance.id, key: instance.key, number };
}

/**
 * Starts a test server and connects one sandbox phone per entry of `numbers` (named after its key),
 * in the order given.
 */
export async function startWithPhones<N extends string>(numbers: Record<N, string>, options: TestServerOptions = {}): Promise<{ t: TestServer; phones: Record<N, Phone> }> {
  const t = await startTestServer(options);
  const phones = {} as Record<N, Phone>;
  for (const [name, number] of Object.entries(numbers) as [N, string][]) phones[name] = await phone(t, name, number);
  return { t, phones };
}

/** The JID of a sandbox phone number. */
export function jidOf(number: string): string {
  return `${number}@s.whatsapp.net`;
}

/**
 * Sends a text from one phone to another and waits until the receiver stored it. Answers the sent
 * message id.
 */
export async function deliverText(t: TestServer, from: Phone, to: Phone, text: string): Promise<string> {
  const sent = await t.client(from.key).call('sendText', { body: { to: to.number, text } });
  const id = sent.data.key.id;
  await t.waitFor(async () => {
    const res = await t.client(to.key).call('listChatMessages', { params: { jid: from.number }, query: { limit: 100 } });
    return res.data.some((m) => m.key.id === id);
  }, 5000, `message ${id} to reach ${to.number}`);
  await t.settle();
  return id;
}

/** Events of one instance of the given type, in processing order. */
export function eventsOf<T = any>(t: TestServer, instanceId: string, type: string): T[] {
  return t.events.filter((e) => e.instance === instanceId && e.type === type) as T[];
}

/** The statuses of one call's `call` events on a phone, in processing order. */
export function callStatuses(t: TestServer, p: Phone, callId: string): string[] {
  return eventsOf<{ callId: string; status: string }>(t, p.id, 'call').filter((e) => e.callId === callId).map((e) => e.status);
}

/** A call placed through the API, with the client-side time bounds of its offer. */
export interface PlacedCall {
  callId: string;
  /** Before the request: the call's ring deadline is at least this plus the ring time. */
  sentAt: number;
  /** After the answer: the deadline is at most this plus the ring time. */
  answeredAt: number;
}

/** Places a call from one phone to another and waits until the caller hears it ringing. */
export async function placeCall(t: TestServer, from: Phone, to: Phone): Promise<PlacedCall> {
  const sentAt = Date.now();
  const { data } = await t.client(from.key).call('placeCall', { body: { to: to.number } });
  const answeredAt = Date.now();
  await t.waitFor(() => callStatuses(t, from, data.callId).includes('ringing'), 5000, 'the caller to hear it ringing');
  return { callId: data.callId, sentAt, answeredAt };
}

/** Waits (at most 5 s) for an event of `type` on a phone that `match` accepts, and answers it. */
export function waitForEvent<T = any>(t: TestServer, p: Phone, type: string, match: (e: T) => boolean, what: string) {
  return t.waitFor(() => eventsOf<T>(t, p.id, type).find(match), 5000, what);
}
