import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import type { MessageRepository } from '@parley/core';
import { messageRecord, uniqueId } from './storage-fixtures.js';
import { withStorage, type RecordStoreHarness } from './storage-harness.js';

const CHATS = ['5511900000001@s.whatsapp.net', '5511900000002@s.whatsapp.net', '120363000000000001@g.us'];

/** What a back end must hold: per id its chat, timestamp and first insertion rank. */
class MessageModel {
  private readonly rows = new Map<string, { chat: string; timestamp: number; seq: number }>();
  private seq = 0;

  upsert(id: string, chat: string, timestamp: number): void {
    this.rows.set(id, { chat, timestamp, seq: this.rows.get(id)?.seq ?? ++this.seq });
  }

  delete(id: string): void {
    this.rows.delete(id);
  }

  deleteChat(chat: string): void {
    for (const [id, row] of this.rows) if (row.chat === chat) this.rows.delete(id);
  }

  /** A chat's ids, newest first. */
  chat(chat: string): string[] {
    return [...this.rows].filter(([, row]) => row.chat === chat)
      .sort(([, a], [, b]) => b.timestamp - a.timestamp || b.seq - a.seq).map(([id]) => id);
  }
}

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) % below);
  };
}

/** Reads every page of every chat at several limits and compares them, and each total, with the model. */
async function assertPages(messages: MessageRepository, instance: string, model: MessageModel): Promise<void> {
  for (const chat of CHATS) {
    const expected = model.chat(chat);
    for (const limit of [1, 3, 7, 50]) {
      const seen: string[] = [];
      const pages = Math.ceil(expected.length / limit) + 1;
      for (let page = 1; page <= pages; page++) {
        const answer = await messages.listByChat(instance, chat, { page, limit });
        assert.equal(answer.total, expected.length, `${chat} total at page ${page} of ${limit}`);
        assert.ok(answer.items.length <= limit);
        seen.push(...answer.items.map((record) => record.key.id));
      }
      assert.deepEqual(seen, expected, `${chat} paged by ${limit}: no duplicate, no gap, newest first`);
    }
  }
}

/**
 * MessageRepository paging under every kind of write: the totals a page answers stay exact and the
 * pages, read one after another, hold each message of the chat exactly once in listing order, after
 * inserts at the newest end, the oldest end and in between (history sync), replaces that keep, change
 * the timestamp of or move a message to another chat, deletes, chat deletes, and concurrent writers.
 */
export function describeMessagePageCases(harness: RecordStoreHarness): void {
  describe('message pages and counts', () => {
    it('pages and totals stay exact through inserts anywhere, replaces, moves and deletes', () => withStorage(harness, async ({ messages }) => {
      const instance = uniqueId('ins');
      const model = new MessageModel();
      const next = random(26);
      for (let step = 0; step < 160; step++) {
        const id = `M${next(60)}`;
        const chat = CHATS[next(CHATS.length)]!;
        const kind = next(10);
        if (kind < 7) {
          // Few distinct timestamps: ties are frequent, and their order is the insertion order.
          const timestamp = 1_000 + next(25);
          await messages.upsert(instance, messageRecord(chat, id, timestamp));
          model.upsert(id, chat, timestamp);
        } else if (kind < 9) {
          await messages.delete(instance, [id, `${id}-unknown`, id]);
          model.delete(id);
        } else if (step % 4 === 0) {
          await messages.deleteChat(instance, chat);
          model.deleteChat(chat);
        }
        if (step % 40 === 39) await assertPages(messages, instance, model);
      }
      await assertPages(messages, instance, model);
    }));

    it('a replace with the same chat and timestamp keeps the order; with another timestamp it moves', () => withStorage(harness, async ({ messages }) => {
      const instance = uniqueId('ins');
      const model = new MessageModel();
      const chat = CHATS[0]!;
      for (const [id, timestamp] of [['A', 10], ['B', 20], ['C', 30], ['D', 40], ['E', 50]] as const) {
        await messages.upsert(instance, messageRecord(chat, id, timestamp));
        model.upsert(id, chat, timestamp);
      }
      for (const [id, timestamp] of [['C', 30], ['E', 5], ['A', 60], ['C', 45]] as const) {
        await messages.upsert(instance, messageRecord(chat, id, timestamp, 'READ'));
        model.upsert(id, chat, timestamp);
        await assertPages(messages, instance, model);
      }
      assert.deepEqual((await messages.listByChat(instance, chat, { page: 1, limit: 2 })).items.map((m) => [m.key.id, m.status]), [['A', 'READ'], ['C', 'READ']]);
    }));

    it('timestamps beyond 2^53 or unreadable list as numbers: first and last, on every page', () => withStorage(harness, async ({ messages }) => {
      const instance = uniqueId('ins');
      const chat = CHATS[2]!;
      for (const [id, timestamp] of [['far', '100000000000000000000'], ['now', '1700000000'], ['bad', 'not a number'], ['then', '1600000000']]) {
        await messages.upsert(instance, { ...messageRecord(chat, id, 0), messageTimestamp: timestamp });
      }
      const ids = async (page: number) => (await messages.listByChat(instance, chat, { page, limit: 1 })).items.map((m) => m.key.id);
      assert.deepEqual([await ids(1), await ids(2), await ids(3), await ids(4), await ids(5)], [['far'], ['now'], ['then'], ['bad'], []]);
    }));

    it('concurrent writers on one chat leave exact totals and complete pages', () => withStorage(harness, async ({ messages }) => {
      const instance = uniqueId('ins');
      const model = new MessageModel();
      const chat = CHATS[1]!;
      // Distinct timestamps: the listing order does not depend on which concurrent write lands first.
      const writer = (from: number) => Promise.all(Array.from({ length: 40 }, async (_, i) => {
        const id = `W${from}-${i}`;
        await messages.upsert(instance, messageRecord(chat, id, (i * 7919 + from) % 1_000 + from * 1_000));
        if (i % 3 === 0) await messages.delete(instance, [id]);
      }));
      await Promise.all([writer(1), writer(2), writer(3)]);
      for (const from of [1, 2, 3]) {
        for (let i = 0; i < 40; i++) if (i % 3 !== 0) model.upsert(`W${from}-${i}`, chat, (i * 7919 + from) % 1_000 + from * 1_000);
      }
      await assertPages(messages, instance, model);
    }));
  });
}
