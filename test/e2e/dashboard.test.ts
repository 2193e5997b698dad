import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestHost, type TestHost } from '@parley/testkit/host';
import { browserUnavailable, decodeQrImage, launchChromium, screenshot, signIn } from '../support/browser.js';

const skip = browserUnavailable();
/** A new sandbox QR code this often, so the test sees one replace another. */
const QR_REFRESH_MS = 4000;
const ALICE = '5511900000101';
const BOB = '5511900000102';

/** Steps wait at most this long for the page (a loaded 2-core machine included). */
const STEP_MS = 20_000;

describe('dashboard in a real browser', { skip, timeout: 240_000 }, () => {
  let host: TestHost;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let aliceKey = '';
  let aliceId = '';

  /**
   * The page shows the code the API answers. The channel keeps issuing codes, and on a loaded machine
   * one may come between any two reads: the comparison counts only when the API answered the same code
   * before the page showed it and after its image was decoded (bounded tries). Every code the page shows
   * is recorded, so two arriving within one animation frame are both seen.
   */
  const assertPageShowsApiCode = async () => {
    await page.evaluate(() => {
      const img = document.querySelector<HTMLImageElement>('#qr-image')!;
      const seen = [img.dataset.code];
      (window as unknown as { qrSeen: unknown[] }).qrSeen = seen;
      new MutationObserver(() => seen.push(img.dataset.code)).observe(img, { attributes: true, attributeFilter: ['data-code'] });
    });
    const apiCode = async () => (await host.client.instance(aliceKey).call('connectInstance')).qrcode;
    let compared: { shown: string | null; answered: string } | undefined;
    for (let attempt = 0; attempt < 10 && !compared; attempt++) {
      const answered = await apiCode();
      assert.ok(answered, 'the API answers a QR code');
      await page.waitForFunction((code) => (window as unknown as { qrSeen: unknown[] }).qrSeen.includes(code), answered, { timeout: QR_REFRESH_MS * 2 + STEP_MS });
      const shown = await decodeQrImage(page, '#qr-image');
      if (await apiCode() === answered) compared = { shown, answered };
    }
    assert.ok(compared, 'the API answered the same code across one check in ten tries');
    assert.equal(compared.shown, compared.answered, 'the image on the page is the code the API answers');
  };

  before(async () => {
    host = await startTestHost({
      plugins: [
        { package: '@parley/storage-sqlite' },
        { package: '@parley/channel-sandbox', options: { autoScanMs: 0, qrRefreshMs: QR_REFRESH_MS, maxQrRefreshes: 50 } },
        { package: '@parley/webhook-native' },
      ],
      config: { webhooks: { retry: { schedule: [200], jitter: 0 }, housekeeping: { sweepCron: '* * * * * *' } } } as never,
    });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(STEP_MS);
  });

  after(async () => {
    await browser?.close();
    await host?.stop();
    assert.deepEqual(host?.server.undeclaredAnswers() ?? [], [], 'every answer the dashboard got is declared in the OpenAPI document');
  });

  it('sends a browser asking for / to the dashboard, and refuses a wrong admin token with a clear message', async () => {
    const answer = await page.goto(`${host.url}/`);
    assert.equal(new URL(page.url()).pathname, '/dashboard/');
    assert.equal(answer?.status(), 200);
    await page.getByLabel('Admin token').fill('not-the-admin-token-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /Wrong admin token: the server answered 401/);
    assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'a refused token is not kept');
    await screenshot(page, '01-wrong-token');
  });

  it('signs in with the admin token, kept in session storage only and never in the URL', async () => {
    await page.getByLabel('Admin token').fill(host.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Instances' }).waitFor();
    await page.getByText('Live: event stream').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('parley.adminToken')), host.adminToken);
    assert.equal(await page.evaluate(() => localStorage.length), 0);
    assert.ok(!page.url().includes(host.adminToken));
    await screenshot(page, '02-signed-in');
  });

  it('creates a sandbox instance from the form and shows its QR code, which decodes to the code the API answers', async () => {
    await page.getByLabel('Channel', { exact: true }).fill('sandbox');
    await page.getByLabel('Name').fill('alice');
    await page.getByLabel('Options (JSON)').fill(JSON.stringify({ number: ALICE }));
    await page.getByRole('button', { name: 'Create instance' }).click();
    await page.getByRole('heading', { name: 'alice' }).waitFor();
    const listed = (await host.client.call('adminListInstances')).data.find((i) => i.name === 'alice');
    assert.ok(listed, 'the API lists the instance the form created');
    assert.equal(listed.channel, 'sandbox');
    aliceKey = listed.key;
    aliceId = listed.id;
    assert.ok(page.url().endsWith(`#/instances/${aliceId}/connect`), 'the page is addressed by the public id, never the key');

    await page.getByRole('button', { name: 'Connect: show the QR code' }).click();
    await page.locator('#qr-image').waitFor();
    await assertPageShowsApiCode();
    assert.match(await page.locator('#qr-countdown').innerText(), /New code in about \d+ s/);
    await screenshot(page, '03-qr-code');
  });

  it('replaces the QR code live when the channel issues a new one (a qrcode event of the stream, no API call)', async () => {
    const first = await decodeQrImage(page, '#qr-image');
    const calls: string[] = [];
    const onRequest = (request: { method(): string; url(): string }) => calls.push(`${request.method()} ${new URL(request.url()).pathname}`);
    page.on('request', onRequest);
    await page.waitForFunction((old) => {
      const img = document.querySelector<HTMLImageElement>('#qr-image');
      return !!img && img.dataset.code !== old;
    }, first, { timeout: QR_REFRESH_MS * 2 + STEP_MS });
    page.off('request', onRequest);
    assert.deepEqual(calls.filter((c) => c === `POST /${aliceKey}/instance`), [], 'the new code came with the event stream');
    const second = await decodeQrImage(page, '#qr-image');
    assert.ok(second && second !== first, 'a different code is shown');
    await assertPageShowsApiCode();
    await screenshot(page, '04-new-qr-code');
  });

  it('links the instance with the sandbox scan button; the state turns connected without a reload', async () => {
    await page.evaluate(() => { (window as unknown as { notReloaded: boolean }).notReloaded = true; });
    await page.getByRole('button', { name: 'Scan with the sandbox phone' }).click();
    await page.locator('#instance-state [data-state="open"]').waitFor();
    await page.locator('#connected-note').waitFor();
    assert.match(await page.locator('#connected-note').innerText(), new RegExp(`Connected as \\+${ALICE}`));
    assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'the page was not reloaded');
    assert.equal((await host.client.instance(aliceKey).call('getInstance')).instance.connection?.status, 'open');
    await screenshot(page, '05-connected');
    await page.goto(`${host.url}/dashboard/#/`);
    await page.locator(`tr[data-instance="${aliceId}"] [data-state="open"]`).waitFor();
  });

  it('shows a text sent from one instance arriving live in the other instance\'s view', async () => {
    const bob = (await host.client.call('adminCreateInstance', { body: { channel: 'sandbox', name: 'bob', options: { number: BOB } } })).data;
    await host.client.instance(bob.key).call('connectInstance');
    await host.client.call('sandbox_post_key_scan', { params: { key: bob.key }, body: {} });
    const bobPage = await context.newPage();
    bobPage.setDefaultTimeout(STEP_MS);
    await signIn(bobPage, host.url, host.adminToken);
    await bobPage.goto(`${host.url}/dashboard/#/instances/${bob.id}/messages`);
    await bobPage.getByRole('heading', { name: 'Incoming, live' }).waitFor();
    await bobPage.getByRole('heading', { name: 'Chats' }).waitFor();
    await bobPage.getByText('Live: event stream').waitFor();
    // Let the messages view read its first chat list (the baseline) before anything arrives.
    await bobPage.getByText('No chats yet.').waitFor();

    await page.goto(`${host.url}/dashboard/#/instances/${aliceId}/messages`);
    await page.getByLabel(/^To/).fill(BOB);
    await page.getByLabel('Text').fill('hello bob, from the dashboard');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText(/^Sent: /).waitFor();
    await bobPage.locator('#incoming li', { hasText: 'hello bob, from the dashboard' }).waitFor();
    // Two more within the same second (one chat timestamp): both are listed, once each.
    await Promise.all(['second one', 'third one'].map((text) => host.client.instance(aliceKey).call('sendText', { body: { to: BOB, text } })));
    await bobPage.locator('#incoming li', { hasText: 'second one' }).waitFor();
    await bobPage.locator('#incoming li', { hasText: 'third one' }).waitFor();
    assert.equal(await bobPage.locator('#incoming li').count(), 3);
    const first = (await host.client.instance(bob.key).call('listChatMessages', { params: { jid: ALICE } })).data.at(-1);
    assert.ok(first && !first.key.fromMe && JSON.stringify(first.message).includes('hello bob, from the dashboard'), 'the API has the message in bob\'s chat');
    await screenshot(bobPage, '06-message-arrived-live');
    await bobPage.close();
  });

  it('edits the webhook settings with the API\'s validation messages, and the API agrees', async () => {
    await page.goto(`${host.url}/dashboard/#/instances/${aliceId}/webhooks`);
    const defaultUrl = page.getByLabel(/^Default URL/);
    await defaultUrl.fill('not a url');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.locator('#wh-webhookMessage-error').waitFor();
    assert.match(await page.locator('#wh-webhookMessage-error').innerText(), /uri|URL/i);
    assert.equal(await defaultUrl.getAttribute('aria-invalid'), 'true');
    assert.equal((await host.client.instance(aliceKey).call('getInstance')).instance.webhook.webhookMessage ?? '', '', 'a refused change changes nothing');
    await screenshot(page, '07-webhook-validation');

    host.receiver.respond({ status: 500 });
    await page.getByLabel('Send webhooks (master switch)').check();
    await defaultUrl.fill(`${host.receiver.url}/hook`);
    await page.getByLabel('Format').fill('native');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Webhook settings saved.').waitFor();
    const webhook = (await host.client.instance(aliceKey).call('getInstance')).instance.webhook;
    assert.equal(webhook.allowWebhook, true);
    assert.equal(webhook.webhookMessage, `${host.receiver.url}/hook`);
    assert.equal(webhook.webhookFormat, 'native');
  });

  it('shows dead letters and the statistics live, redelivers one, then all', async () => {
    const bob = (await host.client.call('adminListInstances')).data.find((i) => i.name === 'bob')!;
    await host.client.instance(bob.key).call('sendText', { body: { to: ALICE, text: 'this one reaches a failing webhook' } });
    const row = page.locator('tr[data-dead-letter]').first();
    await row.waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => Number(document.querySelector('[data-stat="failed"]')?.textContent) >= 2);
    const id = (await row.getAttribute('data-dead-letter'))!;
    const dead = await host.client.instance(aliceKey).call('webhookDeadLetters');
    assert.ok(dead.data.some((d) => d.id === id), 'the row is a dead letter the API lists');
    await screenshot(page, '08-dead-letters');

    host.receiver.respond({ status: 200 });
    const received = host.receiver.requests.length;
    await row.getByRole('button', { name: /^Redeliver/ }).click();
    await page.locator(`tr[data-dead-letter="${id}"]`).waitFor({ state: 'detached' });
    assert.ok(!(await host.client.instance(aliceKey).call('webhookDeadLetters')).data.some((d) => d.id === id), 'the API no longer lists it');
    await host.receiver.waitFor(received + 1, STEP_MS);
    await page.waitForFunction(() => Number(document.querySelector('[data-stat="sent"]')?.textContent) >= 1);

    if (await page.getByRole('button', { name: 'Redeliver all as they were' }).isVisible()) {
      await page.getByRole('button', { name: 'Redeliver all as they were' }).click();
    }
    await page.locator('#no-dead-letters').waitFor();
    assert.equal((await host.client.instance(aliceKey).call('webhookDeadLetters')).total, 0, 'the API has no dead letter left');
    const stats = (await host.client.instance(aliceKey).call('webhookStatistics')).data;
    await page.waitForFunction((sent) => Number(document.querySelector('[data-stat="sent"]')?.textContent) >= sent, stats.totalSent);
    await screenshot(page, '09-redelivered');
  });

  it('is usable 375 px wide: nothing overflows the page sideways', async () => {
    const narrow = await browser.newContext({ viewport: { width: 375, height: 812 } });
    try {
      const small = await narrow.newPage();
      small.setDefaultTimeout(STEP_MS);
      await small.goto(`${host.url}/dashboard/`);
      await small.getByLabel('Admin token').fill(host.adminToken);
      await small.keyboard.press('Enter');
      await small.getByRole('heading', { name: 'Instances' }).waitFor();
      for (const [hash, heading] of [['#/', 'Instances'], [`#/instances/${aliceId}/connect`, 'alice'], [`#/instances/${aliceId}/webhooks`, 'Settings'], [`#/instances/${aliceId}/messages`, 'Chats']] as const) {
        await small.goto(`${host.url}/dashboard/${hash}`);
        await small.getByRole('heading', { name: heading, exact: true }).waitFor();
        const width = await small.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= 375, `${hash} is ${width} px wide`);
      }
      await screenshot(small, '10-narrow-375px');
    } finally {
      await narrow.close();
    }
  });
});
