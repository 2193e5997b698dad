import assert from 'node:assert/strict';
import { after, describe, it } from './test-runner.js';
import { CapabilityNotSupportedError, MESSAGE_STATUS_RANK, requireCapability, restStatusOf, type OutgoingType } from '@parley/core';
import {
  checkCapabilities, checkInbound, checkSentRecord, connectChecked, freshId, messageEvent, messagingOf, statusEvent,
} from './channel-conformance-checks.js';
import { exampleContent, SEND_TYPES } from './channel-conformance-examples.js';
import type { ChannelConformanceHarness } from './channel-conformance-harness.js';
import { describeReceivedMediaChecks } from './channel-conformance-media.js';
import { startRun, type ConformanceRun } from './channel-conformance-host.js';

export type {
  ChannelConformanceDeclaration, ChannelConformanceHarness, ChannelConformanceRun, ChannelFarSide, ConformanceHost, ConformanceInboundKind,
  InboundAttachment, InboundRequest, RouteCall,
} from './channel-conformance-harness.js';

/** Lets queued network work (loopback answers, in-process deliveries) run. */
async function drain(run: ConformanceRun): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  await run.settled();
}

/**
 * The conformance suite every channel runs: it checks what the channel declares
 * ({@link ChannelConformanceDeclaration}) against what its adapter does, driving the channel's far
 * side (peer phone, fake socket, mock API) through the harness. Each test starts a new run: a new
 * driver, storage and far side from `harness.start()`. Checked:
 *
 * - the adapter's channel is the driver's; exactly the declared capability families are present,
 *   and every other one answers 422 `capability_not_supported` through `requireCapability`;
 * - `messaging.supports` answers true for exactly the declared send types, and sending another
 *   type answers 422;
 * - main channels: the far side connects the adapter, which reports an open connection, and
 *   `connection.restart()` reconnects with the same session (no new QR), still receiving and sending;
 * - each declared send type answers a `PENDING` record for the peer's chat with the declared
 *   `message` member, and is echoed as an own `message` event exactly when declared;
 * - the declared delivery statuses arrive as `message.status` events, in order, never moving the
 *   stored record's status backwards;
 * - each declared inbound kind arrives as one `message` event of that content type, whose record
 *   is the inbound message's;
 * - a new adapter over the same storage (a server restart) keeps the session (no new QR), the
 *   stored records, and the state that maps later statuses onto messages sent before the restart;
 * - channels declaring `receivedMedia`: received attachments download within the host's media limits
 *   the driver is built with, and past them fail with `MediaTooLargeError` / `MediaDownloadTimeoutError`.
 *
 * The suite plays the server: it stores each sent record and projects `message` and
 * `message.status` events onto storage as the server's store projector does, so stored statuses can be checked.
 *
 * @param label - channel name shown in the test report.
 * @param harness - the channel's declaration and how to start a run of it.
 */
export function describeChannelConformance(label: string, harness: ChannelConformanceHarness): void {
  const { declares } = harness;
  const sendTypes = SEND_TYPES.filter((type) => declares.sends[type] !== undefined);
  const hasMessaging = declares.capabilities.includes('messaging');
  const text = (n: number): string => `conformance ${label} ${n}`;

  async function withRun(body: (run: ConformanceRun) => Promise<void>): Promise<void> {
    const run = await startRun(harness);
    try {
      await body(run);
    } finally {
      await run.close();
    }
  }

  describe(`channel conformance: ${label}`, () => {
    after(async () => {
      await harness.cleanup?.();
    });

    it('serves its driver\'s channel with exactly the declared capabilities; the others answer 422', () => withRun(async (run) => {
      const adapter = run.host.adapter();
      assert.equal(adapter.channel, run.host.driver.channel);
      checkCapabilities(adapter, declares);
    }));

    if (declares.capabilities.includes('connection')) {
      it('connects through the far side and reports an open connection', () => withRun(async (run) => {
        await connectChecked(run, declares);
        const user = requireCapability(run.host.adapter(), 'connection').state().user!;
        const open = await run.host.waitFor('a connection open event', (e): e is Extract<typeof e, { type: 'connection'; status: 'open' }> =>
          e.type === 'connection' && e.status === 'open');
        assert.equal(open.user.id, user.id);
      }));
    }

    if (declares.capabilities.includes('connection')) {
      it('connection.restart reconnects with the same session and keeps receiving and sending', () => withRun(async (run) => {
        await connectChecked(run, declares);
        const connection = requireCapability(run.host.adapter(), 'connection');
        const user = connection.state().user;
        const mark = run.host.events.length;
        await connection.restart();
        await run.farSide.reopen?.();
        await drain(run);
        assert.equal(connection.state().phoneConnected, true, 'connected again after restart');
        assert.equal(connection.state().user?.id, user?.id, 'the same account');
        assert.deepEqual(run.host.events.slice(mark).filter((e) => e.type === 'qrcode'), [], 'no new QR: the session was kept');
        if (declares.inbound.includes('text')) {
          const request = { kind: 'text' as const, text: text(7), id: freshId() };
          checkInbound((await messageEvent(run.host, await run.farSide.deliverInbound(request), false)).message, request, declares);
        }
        if (declares.sends.text) {
          const record = await messagingOf(run.host.adapter()).send({ to: declares.peer.to, content: { type: 'text', text: text(8) } });
          checkSentRecord(record, declares, declares.sends.text, run.host.driver.channel);
        }
      }));
    }

    if (hasMessaging) {
      it('supports exactly the declared send types; sending another answers 422', () => withRun(async (run) => {
        await connectChecked(run, declares);
        const messaging = messagingOf(run.host.adapter());
        assert.deepEqual(SEND_TYPES.filter((type) => messaging.supports(type)), sendTypes);
        const before = run.host.events.length;
        for (const type of SEND_TYPES.filter((candidate) => !sendTypes.includes(candidate))) {
          await assert.rejects(messaging.send({ to: declares.peer.to, content: exampleContent(type, declares.peer.chatJid, text(0)) }),
            (err: unknown) => err instanceof CapabilityNotSupportedError && err.status === 422, `sending ${type}`);
        }
        await drain(run);
        assert.deepEqual(run.host.events.slice(before).map((e) => e.type), [], 'refused sends emit nothing');
      }));
    }

    describe('sends', () => {
      for (const type of sendTypes) {
        const member = declares.sends[type]!;
        it(`${type} answers a PENDING record with ${member}${declares.echoesSends ? ', echoed as an own message' : ''}`, () => withRun(async (run) => {
          await connectChecked(run, declares);
          const record = await messagingOf(run.host.adapter()).send({ to: declares.peer.to, content: exampleContent(type as OutgoingType, declares.peer.chatJid, text(1)) });
          checkSentRecord(record, declares, member, run.host.driver.channel);
          await run.storeSent(record);
          if (declares.echoesSends) {
            const echo = await messageEvent(run.host, record.key.id, true);
            assert.deepEqual(echo.message.record, record, 'the echo carries the sent record');
          } else {
            await drain(run);
            assert.equal(run.host.events.some((e) => e.type === 'message' && e.message.id === record.key.id), false, 'no echo of the send');
          }
          assert.deepEqual((await run.host.storage.messages.get((await run.host.instance()).id, record.key.id))?.message, record.message, 'stored record');
        }));
      }
    });

    if (declares.statuses.length > 0 && declares.sends.text) {
      it(`statuses progress in order: ${declares.statuses.join(' → ')}`, () => withRun(async (run) => {
        await connectChecked(run, declares);
        const instanceId = (await run.host.instance()).id;
        const record = await messagingOf(run.host.adapter()).send({ to: declares.peer.to, content: { type: 'text', text: text(2) } });
        await run.storeSent(record);
        for (const status of declares.statuses) {
          await run.farSide.acknowledge(record, status);
          await statusEvent(run.host, record.key.id, status);
          assert.equal((await run.host.storage.messages.get(instanceId, record.key.id))?.status, restStatusOf(status), `stored status after ${status}`);
        }
        const reported = run.host.events.filter((e) => e.type === 'message.status' && e.messageId === record.key.id)
          .map((e) => (e as { status: Parameters<typeof restStatusOf>[0] }).status);
        const ranks = reported.map((status) => MESSAGE_STATUS_RANK[restStatusOf(status)]);
        assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b), `statuses arrive in order: ${reported.join(', ')}`);
      }));
    }

    describe('inbound', () => {
      for (const kind of declares.inbound) {
        it(`a received ${kind} becomes one message event of content type ${kind}`, () => withRun(async (run) => {
          await connectChecked(run, declares);
          const request = { kind, text: text(3), id: freshId() };
          const id = await run.farSide.deliverInbound(request);
          const { message } = await messageEvent(run.host, id, false);
          checkInbound(message, request, declares);
          await drain(run);
          assert.equal(run.host.events.filter((e) => e.type === 'message' && e.message.id === id).length, 1, 'one message event');
          assert.deepEqual((await run.host.storage.messages.get((await run.host.instance()).id, id))?.message, message.record.message);
        }));
      }
    });
    describeReceivedMediaChecks(harness, text);

    it('a new adapter over the same storage keeps the session, the records and the message state', () => withRun(async (run) => {
      await connectChecked(run, declares);
      const instanceId = (await run.host.instance()).id;
      const connection = declares.capabilities.includes('connection') ? () => requireCapability(run.host.adapter(), 'connection') : undefined;
      const user = connection?.().state().user;
      const sent = declares.sends.text ? await messagingOf(run.host.adapter()).send({ to: declares.peer.to, content: { type: 'text', text: text(4) } }) : undefined;
      if (sent) await run.storeSent(sent);
      const received = declares.inbound.includes('text') ? await run.farSide.deliverInbound({ kind: 'text', text: text(5), id: freshId() }) : undefined;
      if (received) await messageEvent(run.host, received, false);
      await drain(run);
      const stored = await run.host.storage.messages.listByChat(instanceId, declares.peer.chatJid, { page: 1, limit: 100 });

      const mark = run.host.events.length;
      await run.restart();
      await connectChecked(run, declares);
      if (connection) {
        assert.equal(connection().state().user?.id, user?.id, 'the same account after the restart');
        assert.deepEqual(run.host.events.slice(mark).filter((e) => e.type === 'qrcode'), [], 'no new QR: the session was kept');
      }
      await drain(run);
      assert.deepEqual(await run.host.storage.messages.listByChat(instanceId, declares.peer.chatJid, { page: 1, limit: 100 }), stored, 'stored records');
      if (sent && declares.statuses.length > 0) {
        const last = declares.statuses.at(-1)!;
        for (const status of declares.statuses) await run.farSide.acknowledge(sent, status);
        await statusEvent(run.host, sent.key.id, last);
        assert.equal((await run.host.storage.messages.get(instanceId, sent.key.id))?.status, restStatusOf(last), 'a message sent before the restart still gets its statuses');
      }
      if (sent) {
        const again = await messagingOf(run.host.adapter()).send({ to: declares.peer.to, content: { type: 'text', text: text(6) } });
        assert.notEqual(again.key.id, sent.key.id);
        assert.equal(again.status, 'PENDING');
      }
    }));
  });
}
