import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { FakeClock } from '@parley/testkit';
import { startTestHost } from '@parley/testkit/host';

describe('@parley/testkit/host', () => {
  it('boots the real server with the given plugins, a fake clock, a typed client and a webhook receiver', async () => {
    const clock = new FakeClock(Date.UTC(2031, 4, 6, 7, 8, 9));
    const host = await startTestHost({
      plugins: [{ package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } }, { package: '@parley/webhook-native' }],
      clock,
      // Port 0 as callers pass it: the public URL is still the URL the server answers on.
      config: { port: 0 },
    });
    try {
      assert.match(host.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(host.server.context.host.publicUrl, host.url, 'the public URL is the URL the server answers on');
      assert.ok(existsSync(host.dataDir), 'the temporary data directory exists while the host runs');
      const created = await host.client.call('adminCreateInstance', {
        body: { channel: 'sandbox', name: 'clocked', webhook: { allowWebhook: true, webhookQrCode: `${host.receiver.url}/qr` } },
      });
      assert.equal(created.status, 200);
      assert.equal((await host.client.instance(created.data.key).call('connectInstance')).status, 200);
      const [qr] = await host.receiver.waitFor(1);
      assert.equal(qr!.url, '/qr');
      const event = qr!.json as { type: string; instance: string; timestamp: string };
      assert.equal(event.type, 'qrcode');
      assert.equal(event.instance, created.data.id);
      // The bus stamped the event from the injected clock, not from the machine's.
      assert.equal(event.timestamp, '2031-05-06T07:08:09.000Z');
    } finally {
      await host.stop();
    }
    assert.equal(existsSync(host.dataDir), false, 'stop removes the temporary data directory');
    await assert.rejects(fetch(`${host.url}/health`), 'the server no longer listens');
    await host.stop();
  });

  it('rejects with the boot error of the server when the plugin list has no storage', async () => {
    await assert.rejects(
      startTestHost({ plugins: [{ package: '@parley/channel-sandbox' }] }),
      /no storage back end configured/,
    );
  });
});
