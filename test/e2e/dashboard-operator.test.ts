import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startHttpReceiver } from '@parley/testkit';
import { startTestHost, type TestHost } from '@parley/testkit/host';
import { axeViolations, browserUnavailable, launchChromium, screenshot, signIn } from '../support/browser.js';

const skip = browserUnavailable();
const STEP_MS = 15_000;
const ERIN = '5511900000401';
const FRANK = '5511900000402';

/** A loopback port nobody listens on: the WhatsApp channel's every connection attempt is refused. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The findings of a first-time operator (issue 24, item 16), each checked in a real browser against a real server. */
describe('dashboard: what a first-time operator expects, in a real browser', { skip, timeout: 300_000 }, () => {
  let host: TestHost;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const consoleLines: string[] = [];
  let erin: { id: string; key: string; webhookSecret: string };
  let frank: { id: string; key: string };

  before(async () => {
    host = await startTestHost({
      plugins: [
        { package: '@parley/storage-sqlite' }, { package: '@parley/webhook-native' },
        { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
        {
          package: '@parley/channel-baileys',
          options: {
            webSocketUrl: `ws://127.0.0.1:${await closedPort()}/ws/chat`, connectTimeoutMs: 1000, logLevel: 'silent',
            reconnect: { maxAttempts: 3, baseDelayMs: 60_000, maxDelayMs: 60_000, jitter: 0 },
          },
        },
      ],
      // Not the form's former hard-coded `whatsapp`: the form must follow the server.
      config: { defaultChannel: 'sandbox', webhooks: { retry: { schedule: [200], jitter: 0 }, housekeeping: { sweepCron: '* * * * * *' } } } as never,
    });
    erin = (await host.client.call('adminCreateInstance', { body: { channel: 'sandbox', name: 'erin', options: { number: ERIN } } })).data;
    frank = (await host.client.call('adminCreateInstance', { body: { channel: 'sandbox', name: 'frank', options: { number: FRANK } } })).data;
    for (const one of [erin, frank]) {
      await host.client.instance(one.key).call('connectInstance');
      await host.client.call('sandbox_post_key_scan', { params: { key: one.key }, body: {} });
    }
    browser = await launchChromium();
    // axe-core is injected as a script, which the dashboard's CSP refuses otherwise.
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'], bypassCSP: true });
    page = await context.newPage();
    page.setDefaultTimeout(STEP_MS);
    page.on('console', (line) => consoleLines.push(line.text()));
    await signIn(page, host.url, host.adminToken);
  });

  after(async () => {
    await browser?.close();
    await host?.stop();
    assert.deepEqual(host?.server.undeclaredAnswers() ?? [], [], 'every answer the dashboard got is declared in the OpenAPI document');
  });

  it('shows the instance key and webhook secret masked, reveals and copies them, and never logs them', async () => {
    await page.goto(`${host.url}/dashboard/#/instances/${erin.id}/connect`);
    const key = page.locator('#secret-key');
    await key.waitFor();
    assert.ok(!(await key.innerText()).includes(erin.key), 'masked until revealed');
    assert.ok(!(await page.content()).includes(erin.key), 'the page holds no unmasked key');
    await page.getByRole('button', { name: 'Reveal the instance key' }).click();
    assert.equal(await key.innerText(), erin.key);
    await page.getByRole('button', { name: 'Copy the instance key' }).click();
    await page.getByRole('status').filter({ hasText: 'Instance key copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), erin.key);
    await page.getByRole('button', { name: 'Copy the webhook secret' }).click();
    await page.getByRole('status').filter({ hasText: 'Webhook secret copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), erin.webhookSecret);
    assert.ok(!(await page.locator('#secret-webhook').innerText()).includes(erin.webhookSecret), 'copying reveals nothing');
    assert.deepEqual(await axeViolations(page), [], 'the secrets, one revealed');
    await screenshot(page, '20-key-and-secret');
    await page.getByRole('button', { name: 'Hide the instance key' }).click();
    assert.ok(!(await key.innerText()).includes(erin.key));
    assert.deepEqual(consoleLines.filter((l) => l.includes(erin.key) || l.includes(erin.webhookSecret)), [], 'nothing logged them');
  });

  it('preselects the server\'s default channel in the create form', async () => {
    await page.goto(`${host.url}/dashboard/#/`);
    await page.getByRole('heading', { name: 'Create an instance' }).waitFor();
    await page.waitForFunction(() => document.querySelector<HTMLInputElement>('#create-channel')?.value === 'sandbox');
    assert.match(await page.locator('#create-channel-help').innerText(), /server's default: sandbox/);
  });

  it('shows each field\'s validation message beside the field (the API\'s details.fields)', async () => {
    await page.goto(`${host.url}/dashboard/#/`);
    await page.getByLabel('Channel', { exact: true }).fill('nope');
    await page.getByRole('button', { name: 'Create instance' }).click();
    const channelError = page.locator('#create-channel-error');
    await channelError.waitFor();
    assert.match(await channelError.innerText(), /^"nope" is not available; configured channels: /);
    assert.equal(await page.locator('#create-channel').getAttribute('aria-invalid'), 'true');
    assert.match((await page.locator('#create-channel').getAttribute('aria-describedby')) ?? '', /create-channel-error/);
    // Beside the field: right below it, above the next field.
    const [field, message, next] = await Promise.all(['#create-channel', '#create-channel-error', '#create-name'].map((s) => page.locator(s).boundingBox()));
    assert.ok(field && message && next && message.y >= field.y + field.height - 1 && message.y < next.y, 'the message sits between the field and the next one');

    await page.getByLabel('Channel', { exact: true }).fill('sandbox');
    await page.getByLabel('Name').fill('x'.repeat(201));
    await page.getByRole('button', { name: 'Create instance' }).click();
    await page.locator('#create-name-error').waitFor();
    // Beside the field, the message does not name the field again.
    assert.equal(await page.locator('#create-name-error').innerText(), 'Must NOT have more than 200 characters');
    assert.equal(await channelError.count(), 0, 'the channel is no longer marked');
    assert.deepEqual(await page.getByRole('alert').allInnerTexts(), ['Not created: the API refused the fields marked above.'], 'under the button: no second copy of the message');
    assert.deepEqual(await axeViolations(page), [], 'the form with its field messages');
    await screenshot(page, '21-field-errors');
    assert.equal((await host.client.call('adminListInstances')).data.length, 2, 'nothing was created');
  });

  it('fits the instances table into 390 px: every column on screen, nothing scrolled sideways', async () => {
    const narrow = await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
    try {
      const small = await narrow.newPage();
      small.setDefaultTimeout(STEP_MS);
      await signIn(small, host.url, host.adminToken);
      await small.locator(`[data-instance="${erin.id}"]`).waitFor();
      const layout = await small.evaluate(() => {
        const cells = [...document.querySelectorAll('table.instances th, table.instances td')].map((c) => c.getBoundingClientRect());
        const wrap = document.querySelector('.table-wrap')!;
        return { right: Math.max(...cells.map((r) => r.right)), left: Math.min(...cells.map((r) => r.left)), scroll: wrap.scrollWidth - wrap.clientWidth, page: document.documentElement.scrollWidth };
      });
      assert.ok(layout.left >= 0 && layout.right <= 390, `cells span ${layout.left}–${layout.right} px`);
      assert.equal(layout.scroll, 0, 'the table does not scroll sideways');
      assert.ok(layout.page <= 390);
      assert.deepEqual(await axeViolations(small), [], 'the instance cards');
      await screenshot(small, '22-instances-390px');
    } finally {
      await narrow.close();
    }
  });

  it('names contacts by name, push name or formatted phone, not raw JIDs; opening a chat marks it read and clears its badge', async () => {
    await host.client.instance(erin.key).call('sendText', { body: { to: FRANK, text: 'hello frank' } });
    await host.client.instance(erin.key).call('sendText', { body: { to: FRANK, text: 'are you there?' } });
    await page.goto(`${host.url}/dashboard/#/instances/${frank.id}/messages`);
    const chat = page.locator(`button.chat[data-chat="${ERIN}@s.whatsapp.net"]`);
    await chat.locator('.badge', { hasText: '2' }).waitFor();
    // The phone formatter loads in its own chunk: wait for the name to settle.
    await page.waitForFunction((digits) => !document.querySelector('button.chat .chat-name')?.textContent?.includes(digits), ERIN);
    const label = await chat.locator('.chat-name').innerText();
    assert.ok(!label.includes('@') && !label.includes(ERIN), `"${label}" is no raw JID or digit run`);
    assert.ok(label === 'erin' || label === '+55 11 90000 0401', `"${label}" is the push name or the formatted number`);
    await chat.click();
    await chat.locator('.badge').waitFor({ state: 'detached' });
    const listed = (await host.client.instance(frank.key).call('listChats')).data.find((c) => c.id === `${ERIN}@s.whatsapp.net`);
    assert.equal(listed?.unreadCount, 0, 'the API marked the chat read');
    await page.reload();
    await page.getByRole('heading', { name: 'Chats' }).waitFor();
    await page.locator(`button.chat[data-chat="${ERIN}@s.whatsapp.net"]`).waitFor();
    assert.equal(await page.locator(`button.chat[data-chat="${ERIN}@s.whatsapp.net"] .badge`).count(), 0, 'still read after a reload');
    await screenshot(page, '23-chat-read');
  });

  it('shows statuses in words, and the status of a sent message follows the event stream', async () => {
    await page.goto(`${host.url}/dashboard/#/instances/${erin.id}/messages`);
    await page.getByLabel(/^To/).fill(FRANK);
    await page.getByLabel('Text').fill('status, please');
    await page.getByRole('button', { name: 'Send' }).click();
    const status = page.locator('#send-status');
    await status.waitFor();
    await page.waitForFunction(() => /^Sent: (Delivered|Read)\b/.test(document.querySelector('#send-status')?.textContent ?? ''));
    assert.doesNotMatch(await status.innerText(), /PENDING|_ACK/);
    await page.locator(`button.chat[data-chat="${FRANK}@s.whatsapp.net"]`).click();
    const meta = page.locator('ol.conversation li.mine .meta').last();
    await meta.waitFor();
    assert.match(await meta.innerText(), /· (Sent|Delivered|Read)$/);
    // The sender's side of the chat, which the channel names by its JID: the number, formatted.
    assert.equal(await page.locator(`button.chat[data-chat="${FRANK}@s.whatsapp.net"] .chat-name`).innerText(), '+55 11 90000 0402');
    assert.equal(await page.locator('#chat-title').innerText(), 'Chat with +55 11 90000 0402');
    const all = await page.locator('ol.conversation').innerText();
    assert.doesNotMatch(all, /DELIVERY_ACK|SERVER_ACK|PENDING|READ\b/);
    await screenshot(page, '24-statuses-in-words');
  });

  it('shows an offline WhatsApp instance\'s error in the error colour, and its health agrees with the state', async () => {
    const wa = (await host.client.call('adminCreateInstance', { body: { channel: 'whatsapp', name: 'offline-wa' } })).data;
    const answer = await host.client.instance(wa.key).call('connectInstance');
    assert.ok(answer.connection?.lastError, 'the channel reports the refused connection');
    await page.goto(`${host.url}/dashboard/#/instances/${wa.id}/connect`);
    const error = page.locator('#connection-error');
    await error.waitFor();
    assert.match(await error.innerText(), /ECONNREFUSED/);
    const colours = await page.evaluate(() => {
      const probe = document.createElement('p');
      probe.className = 'ok';
      document.body.append(probe);
      const ok = getComputedStyle(probe).color;
      probe.remove();
      return { shown: getComputedStyle(document.querySelector('#connection-error')!).color, ok };
    });
    assert.notEqual(colours.shown, colours.ok, 'not in the success colour');
    assert.equal(await page.locator('#connection-error').getAttribute('class'), 'error');
    const health = await page.locator('#instance-health').innerText();
    assert.doesNotMatch(health, /^healthy/);
    assert.match(health, /offline/i);
    await page.getByRole('button', { name: 'Connect: show the QR code' }).click();
    const noQr = page.getByRole('alert').filter({ hasText: /No QR code yet: .*ECONNREFUSED/ });
    await noQr.waitFor();
    assert.equal(await noQr.getAttribute('class'), 'error', 'the connect answer\'s error is an error too');
    await screenshot(page, '25-offline-whatsapp');
    await page.goto(`${host.url}/dashboard/#/`);
    await page.locator(`tr[data-instance="${wa.id}"] .health`).filter({ hasText: /offline/i }).waitFor();
    await page.locator(`tr[data-instance="${erin.id}"] .health`).filter({ hasText: 'healthy' }).waitFor();
  });

  it('redelivers dead letters to the webhook URL as it is now, after the wrong one was fixed', async () => {
    const fixed = await startHttpReceiver();
    try {
      host.receiver.respond({ status: 404 });
      await host.client.instance(erin.key).call('updateWebhookSettings', { body: { allowWebhook: true, webhookMessage: `${host.receiver.url}/typo`, webhookFormat: 'native' } });
      await host.client.instance(frank.key).call('sendText', { body: { to: ERIN, text: 'this one dies at the wrong URL' } });
      await page.goto(`${host.url}/dashboard/#/instances/${erin.id}/webhooks`);
      await page.locator('tr[data-dead-letter]').first().waitFor({ timeout: 30_000 });
      const letters = (await host.client.instance(erin.key).call('webhookDeadLetters')).data;
      assert.deepEqual(await axeViolations(page), [], 'dead letters with both redelivery buttons');
      await page.getByLabel(/^Default URL/).fill(`${fixed.url}/hook`);
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByText('Webhook settings saved.').waitFor();
      await page.getByRole('button', { name: 'Redeliver all to the current settings' }).click();
      await page.locator('#wh-redeliver-done').filter({ hasText: `Queued ${letters.length} again to the current settings.` }).waitFor();
      await page.locator('#no-dead-letters').waitFor();
      const received = await fixed.waitFor(letters.length, STEP_MS);
      assert.deepEqual(new Set(received.map((r) => r.url)), new Set(['/hook']));
      assert.ok(received.some((r) => r.body.includes('this one dies at the wrong URL')), 'the event that died arrived at the fixed URL');
      assert.equal((await host.client.instance(erin.key).call('webhookDeadLetters')).total, 0);
      await screenshot(page, '26-redelivered-to-current');
    } finally {
      await fixed.close();
    }
  });
});
