import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { COUNTS_NAMESPACE, type EventCounts } from '@parley-example/extension-event-counter';
import type { LoggedEvent } from '@parley/core';
import type { PluginEntry } from '@parley/server';
import { deliverText, phone, type Phone } from '../support/conversation.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const NUMBERS = { alice: '5511976000001', bob: '5511976000002' } as const;
const ANSWER = 'Thanks! A person will answer soon.';
const BOUND_MS = 15_000;

/** The example plugin, loaded by path through the configuration like any other plugin. */
function counter(logFile: string, autoReply?: string): PluginEntry {
  return { package: fileURLToPath(import.meta.resolve('@parley-example/extension-event-counter')), options: { logFile, ...(autoReply ? { autoReply } : {}) } };
}

/** The ids the plugin wrote to its log file, in the order it handled them. */
function handledIds(logFile: string): string[] {
  let text = '';
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { id: string }).id);
}

/** Every event the server handled: its durable event log, in id order. */
async function loggedEvents(t: TestServer): Promise<LoggedEvent[]> {
  const all: LoggedEvent[] = [];
  for (;;) {
    const page = await t.server.context.storage.events.read({ after: all.at(-1)?.id, limit: 500 });
    all.push(...page);
    if (page.length < 500) return all;
  }
}

/** Waits until the plugin has handled as many events as the server logged, then answers both id lists. */
async function handledAll(t: TestServer, logFile: string): Promise<{ handled: string[]; logged: LoggedEvent[] }> {
  await t.settle();
  let logged: LoggedEvent[] = [];
  await t.waitFor(async () => {
    logged = await loggedEvents(t);
    return handledIds(logFile).length >= logged.length;
  }, BOUND_MS, 'the subscriber to handle every logged event');
  // Anything handed over twice would show up by now.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { handled: handledIds(logFile), logged: await loggedEvents(t) };
}

const textsOf = async (t: TestServer, of: Phone, chat: Phone, fromMe: boolean): Promise<string[]> => {
  const page = await t.client(of.key).call('listChatMessages', { params: { jid: chat.number }, query: { limit: 100 } });
  return page.data.filter((m) => m.key.fromMe === fromMe).map((m) => (m.message as { extendedTextMessage?: { text?: string } }).extendedTextMessage?.text ?? '');
};

describe('extension plugins: an in-process event subscriber (examples/extension-event-counter) in the real server', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-extension-'));
  const files = mkdtempSync(join(tmpdir(), 'parley-extension-files-'));
  const logFile = join(files, 'events.ndjson');
  let t: TestServer | undefined;
  let alice: Phone;
  let bob: Phone;

  after(async () => {
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(files, { recursive: true, force: true });
  });

  it('sees every event the server handles, in order, once; counts them in the storage; answers received texts through the send path', async () => {
    t = await startTestServer({ storage: 'sqlite', dataDir, extraPlugins: [counter(logFile, ANSWER)] });
    alice = await phone(t, 'alice', NUMBERS.alice);
    bob = await phone(t, 'bob', NUMBERS.bob);
    for (let i = 0; i < 3; i++) await deliverText(t, alice, bob, `hello ${i}`);
    // Bob's instance answered each text (Tokens.Sends: the REST send path); Alice's did not answer the answers.
    await t.waitFor(async () => (await textsOf(t!, alice, bob, false)).filter((text) => text === ANSWER).length === 3, BOUND_MS, 'the three answers to reach alice');
    const { handled, logged } = await handledAll(t, logFile);
    assert.ok(logged.length >= 20, `${logged.length} events: connections, messages, statuses`);
    assert.deepEqual(handled, logged.map((e) => e.id), 'every logged event, in id order (publish order per instance), once');
    assert.deepEqual((await textsOf(t, alice, bob, true)).sort(), ['hello 0', 'hello 1', 'hello 2']);
    assert.deepEqual((await textsOf(t, bob, alice, true)), [ANSWER, ANSWER, ANSWER]);
    for (const p of [alice, bob]) {
      const counts: EventCounts | null = await t.server.context.storage.state.get<EventCounts>(COUNTS_NAMESPACE, p.id);
      const expected: Record<string, number> = {};
      for (const e of logged.filter((l) => l.instance === p.id)) expected[e.type] = (expected[e.type] ?? 0) + 1;
      assert.deepEqual(counts?.byType, expected, `the counts of ${p.number}`);
    }
    await t.stop();
    t = undefined;
  });

  it('after a restart, first hands over what was logged while it was not loaded (from its cursor), once, then live events', async () => {
    t = await startTestServer({ storage: 'sqlite', dataDir });
    await t.server.restored();
    await deliverText(t, alice, bob, 'while the counter was not loaded');
    await t.stop();
    const before = handledIds(logFile).length;

    t = await startTestServer({ storage: 'sqlite', dataDir, extraPlugins: [counter(logFile)] });
    await t.server.restored();
    await deliverText(t, bob, alice, 'with the counter back');
    const { handled, logged } = await handledAll(t, logFile);
    assert.deepEqual(handled, logged.map((e) => e.id), 'every logged event of the three runs, in id order, once');
    const missed = logged.slice(before).filter((e) => e.type === 'message').map((e) => JSON.parse(e.event) as { message: { content: { body?: string } } });
    assert.ok(missed.some((e) => e.message.content.body === 'while the counter was not loaded'), 'the run without the plugin was caught up');
  });
});
