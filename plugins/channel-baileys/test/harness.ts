import assert from 'node:assert/strict';
import { afterEach, beforeEach } from 'node:test';
import {
  defaultInstanceFlags, defaultWebhookSettings, type ChannelContext, type ChannelEventPayload, type InstanceRecord, type Logger,
} from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import type { Contact } from '@whiskeysockets/baileys';
import type { BaileysAdapter } from '../src/baileys.adapter.js';
import { createBaileysDriver, type BaileysDriverInput } from '../src/baileys.driver.js';
import { FakeSockets, type FakeSocket } from '../src/testing/index.js';
import { spyOnFetch } from './web-host.js';

export const INSTANCE_ID = 'ins_01JD7Q4X9M2K8V3T6R5P0N1B2C';
export const OWN_NUMBER = '5511900000001';
export const OWN_JID = `${OWN_NUMBER}@s.whatsapp.net`;
export const OWN_LID = '80000000000001@lid';
export const PEER = '5511988887777';
export const PEER_JID = `${PEER}@s.whatsapp.net`;
export const PEER_LID = '123456789012345@lid';
export const GROUP_JID = '120363025246125486@g.us';
/** Fixed clock (Unix ms) of every harness. */
export const NOW = 1_735_700_000_000;
export const NOW_S = NOW / 1000;

/** The account the fake socket opens as: device 12 of {@link OWN_NUMBER}. */
export const ME: Contact = { id: `${OWN_NUMBER}:12@s.whatsapp.net`, lid: `80000000000001:12@lid`, name: 'Parley Test' };

/** A logger that drops everything (or collects warnings and errors when asked). */
/**
 * `sendMessage` options with the message id the channel chose for the send checked (a Baileys id,
 * `3EB0…`: chosen before sending so the server's ack of it is known) and left out.
 */
export function withoutMessageId(options: Record<string, unknown>): Record<string, unknown> {
  const { messageId, ...rest } = options;
  assert.match(String(messageId), /^3EB0[0-9A-F]{8,}$/);
  return rest;
}

export function quietLogger(lines: { level: string; obj: unknown; msg?: string }[] = []): Logger {
  const keep = (level: string) => (obj: unknown, msg?: string) => { lines.push({ level, obj, ...(msg ? { msg } : {}) }); };
  const logger: Logger = {
    child: () => logger, trace() {}, debug() {}, info() {}, warn: keep('warn'), error: keep('error'), fatal: keep('fatal'),
  };
  return logger;
}

export function instanceRecord(patch: Partial<InstanceRecord> = {}): InstanceRecord {
  return {
    id: INSTANCE_ID, key: 'key-6Qm1vZ0b8yX4tR2wP9sL3nK7', name: 'baileys-test', driver: 'whatsapp', createdAt: NOW,
    flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(), webhookSecret: 'whsec_test', user: null, phoneConnected: false,
    wantsConnection: false, health: 'healthy', driverOptions: {}, links: {}, ...patch,
  };
}

/** One adapter over a fake socket and a real in-memory storage back end. */
export interface Harness {
  adapter: BaileysAdapter;
  storage: MemoryStorage;
  sockets: FakeSockets;
  events: ChannelEventPayload[];
  context: ChannelContext;
  logs: { level: string; obj: unknown; msg?: string }[];
  /** Events of one type emitted so far. */
  eventsOf<T extends ChannelEventPayload['type']>(type: T): Extract<ChannelEventPayload, { type: T }>[];
  /** Lets pending promise work (event mapping, QR rendering) finish. */
  settle(): Promise<void>;
}

export async function createHarness(
  input: Omit<BaileysDriverInput, 'socketFactory'> & {
    instance?: Partial<InstanceRecord>;
    storage?: MemoryStorage;
    /** Use Baileys' real `makeWASocket` (with `options.webSocketUrl` pointing somewhere local) instead of fake sockets. */
    realSockets?: boolean;
  } = {},
): Promise<Harness> {
  const storage = input.storage ?? new MemoryStorage();
  if (!input.storage) {
    await storage.init();
    await storage.instances.create(instanceRecord(input.instance));
  }
  const sockets = new FakeSockets();
  const events: ChannelEventPayload[] = [];
  const logs: Harness['logs'] = [];
  const { realSockets, ...driverInput } = input;
  const driver = createBaileysDriver({ now: () => NOW, random: () => 0, ...driverInput, ...(realSockets ? {} : { socketFactory: sockets.factory }) });
  const context: ChannelContext = {
    instanceId: INSTANCE_ID,
    instance: async () => (await storage.instances.get(INSTANCE_ID))!,
    emit: (payload) => { events.push(payload); },
    storage,
    logger: quietLogger(logs),
  };
  const adapter = (await driver.create(context)) as BaileysAdapter;
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    await adapter.idle();
  };
  return {
    adapter, storage, sockets, events, context, logs, settle,
    eventsOf: (type) => events.filter((e) => e.type === type) as never,
  };
}

/** Connects the harness's adapter and opens the socket as {@link ME}; answers the open socket. */
export async function connectOpen(h: Harness): Promise<FakeSocket> {
  const connecting = h.adapter.capabilities.connection!.connect();
  const socket = await h.sockets.next(1);
  socket.open(ME);
  await connecting;
  await h.settle();
  h.events.length = 0;
  socket.calls.length = 0;
  return socket;
}

/**
 * Gives every test of the enclosing suite a fresh harness, connected over its fake socket, and stops
 * its adapter afterwards; `set` receives both (suites keep their own `h` and `socket` variables).
 */
export function eachOpenHarness(set: (h: Harness, socket: FakeSocket) => void): void {
  let current: Harness | undefined;
  beforeEach(async () => {
    current = await createHarness();
    set(current, await connectOpen(current));
  });
  afterEach(() => current?.adapter.stop());
}

/**
 * {@link eachOpenHarness} for suites where Baileys builds messages with its own code: it must never
 * have a URL to fetch (media and previews reach it as bytes), so each test also fails when anything
 * called `fetch`.
 */
export function eachOpenHarnessWithoutFetch(set: (h: Harness, socket: FakeSocket) => void): void {
  let fetches: ReturnType<typeof spyOnFetch> | undefined;
  beforeEach(() => {
    fetches = spyOnFetch();
  });
  eachOpenHarness(set);
  afterEach(() => {
    fetches?.restore();
    assert.deepStrictEqual(fetches?.urls, [], 'Baileys fetched a URL itself');
  });
}
