import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startMockGraph, type MockGraph } from '@parley/meta-graph/testing';
import { startTestHost, type TestHost } from '@parley/testkit/host';
import { axeViolations, browserUnavailable, launchChromium, screenshot } from '../support/browser.js';
import { IG_LINK } from '../support/social-server.js';

const skip = browserUnavailable();
const STEP_MS = 20_000;
const CAROL = '5511900000201';

describe('dashboard: keyboard, accessibility, pairing code and instance actions in a real browser', { skip, timeout: 180_000 }, () => {
  let host: TestHost;
  let browser: Browser;
  let page: Page;
  let carol: { id: string; key: string };
  let graph: MockGraph;

  before(async () => {
    graph = await startMockGraph();
    host = await startTestHost({
      plugins: [
        { package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } }, { package: '@parley/webhook-native' },
        { package: '@parley/channel-instagram', options: { graphBaseUrl: graph.url, profileLookup: false } },
      ],
    });
    browser = await launchChromium();
    // axe-core is injected as a script: the dashboard's Content-Security-Policy would refuse it.
    const context = await browser.newContext({ viewport: { width: 1024, height: 800 }, bypassCSP: true });
    page = await context.newPage();
    page.setDefaultTimeout(STEP_MS);
    carol = (await host.client.call('adminCreateInstance', { body: { channel: 'sandbox', name: 'carol', options: { number: CAROL } } })).data;
  });

  after(async () => {
    await browser?.close();
    await host?.stop();
    await graph?.close();
  });

  it('signs in with the keyboard alone', async () => {
    await page.goto(`${host.url}/dashboard/`);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'admin-token', 'the token field is the first stop');
    await page.keyboard.type(host.adminToken);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Sign in');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Instances' }).waitFor();
    // The first stop after signing in is the skip link, which moves focus to the content.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
  });

  it('breaks no WCAG 2.1 A/AA rule (axe-core) on any view', async () => {
    await page.goto(`${host.url}/dashboard/#/`);
    await page.locator(`tr[data-instance="${carol.id}"]`).waitFor();
    assert.deepEqual(await axeViolations(page), [], 'instances');
    for (const [tab, heading] of [['connect', 'Pairing code'], ['webhooks', 'Statistics'], ['messages', 'Chats']] as const) {
      await page.goto(`${host.url}/dashboard/#/instances/${carol.id}/${tab}`);
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      assert.deepEqual(await axeViolations(page), [], tab);
    }
    await page.goto(`${host.url}/dashboard/#/instances/${carol.id}/webhooks`);
    await page.getByLabel(/^Default URL/).fill('ftp://nowhere');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.locator('#wh-error').waitFor();
    assert.deepEqual(await axeViolations(page), [], 'webhooks with validation messages');
  });

  it('links with a pairing code: the number is entered, the code shown, the sandbox phone enters it', async () => {
    await page.goto(`${host.url}/dashboard/#/instances/${carol.id}/connect`);
    await page.getByLabel('Phone number with country code').fill('123');
    await page.getByRole('button', { name: 'Get a pairing code' }).click();
    assert.equal(await page.locator('#pairing-code').count(), 0, 'the browser refuses a number that is no phone number');
    await page.getByLabel('Phone number with country code').fill(CAROL);
    await page.getByRole('button', { name: 'Get a pairing code' }).click();
    const code = page.locator('#pairing-code');
    await code.waitFor();
    assert.match(await code.innerText(), /^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    await page.locator('#instance-state [data-state="waiting_for_pairing_code"]').waitFor();
    await screenshot(page, '11-pairing-code');
    await page.getByRole('button', { name: 'Scan with the sandbox phone' }).click();
    await page.locator('#instance-state [data-state="open"]').waitFor();
    assert.equal((await host.client.instance(carol.key).call('getInstance')).instance.phoneConnected, true);
  });

  it('links an Instagram account with the social-channel form, and unlinks it', async () => {
    await page.goto(`${host.url}/dashboard/#/instances/${carol.id}/connect`);
    await page.getByLabel('Channel', { exact: true }).selectOption('instagram');
    await page.getByLabel('Account id').fill(IG_LINK.accountId);
    await page.getByLabel('Access token').fill(IG_LINK.accessToken);
    await page.getByLabel('App secret').fill(IG_LINK.appSecret);
    await page.getByLabel('Verify token').fill(IG_LINK.verifyToken);
    // Meta refuses the account first: the API's answer is shown and the form keeps what was typed.
    await page.getByRole('button', { name: 'Link Instagram' }).click();
    await page.getByRole('alert').filter({ hasText: 'body.accountId' }).waitFor();
    graph.on('GET', `/v26.0/${IG_LINK.accountId}`, { status: 200, body: { id: IG_LINK.accountId, username: 'parley.shop', name: 'Parley Shop' } });
    await page.getByRole('button', { name: 'Link Instagram' }).click();
    await page.getByRole('status').filter({ hasText: 'Instagram account parley.shop linked.' }).waitFor();
    assert.equal((await host.client.instance(carol.key).call('listLinks')).data.instagram?.accountId, IG_LINK.accountId);
    assert.equal(await page.getByLabel('Access token').inputValue(), '', 'secrets do not stay in the form');
    await screenshot(page, '12-instagram-linked');
    await page.getByRole('listitem').filter({ hasText: 'Instagram:' }).getByRole('button', { name: 'Unlink' }).click();
    await page.getByRole('listitem').filter({ hasText: 'Instagram:' }).waitFor({ state: 'detached' });
    assert.equal((await host.client.instance(carol.key).call('listLinks')).data.instagram, undefined);
  });

  it('restarts, logs out and deletes an instance, and says why a creation was refused', async () => {
    await page.getByRole('button', { name: 'Restart' }).click();
    await page.getByRole('status').filter({ hasText: /restart/i }).waitFor();
    await page.locator('#instance-state [data-state="open"]').waitFor();

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.locator('#instance-state [data-state="disconnected"]').waitFor();
    assert.equal((await host.client.instance(carol.key).call('getInstance')).instance.phoneConnected, false);

    await page.goto(`${host.url}/dashboard/#/`);
    await page.getByLabel('Channel', { exact: true }).fill('sandbox');
    await page.getByLabel('Options (JSON)').fill('{"number": ');
    await page.getByRole('button', { name: 'Create instance' }).click();
    assert.match(await page.locator('#create-options-error').innerText(), /Options must be a JSON object/);
    await page.getByLabel('Options (JSON)').fill(JSON.stringify({ number: CAROL }));
    await page.getByRole('button', { name: 'Create instance' }).click();
    // Whatever the form ends with — a refusal, another error, or a creation (the page moves to it) — is what a failure shows.
    const formAlert = page.locator('#create-title + form').getByRole('alert');
    const outcome = await Promise.race([
      formAlert.waitFor().then(() => formAlert.innerText(), () => 'no answer shown within the step time'),
      page.waitForURL(/#\/instances\//).then(() => `created: ${page.url()}`, () => 'no answer shown within the step time'),
    ]);
    assert.match(outcome, /number_taken/);
    assert.equal((await host.client.call('adminListInstances')).data.length, 1, 'nothing was created');
    // A name another instance holds: the refusal is shown beside the name field.
    await page.getByLabel('Options (JSON)').fill('');
    await page.getByLabel('Name', { exact: true }).fill('Carol');
    await page.getByRole('button', { name: 'Create instance' }).click();
    await page.getByRole('alert').filter({ hasText: 'Not created: the API refused the fields marked above.' }).waitFor();
    assert.equal(await page.locator('#create-name-error').innerText(), 'an instance named "Carol" exists (names are unique, whatever their case)');
    assert.equal(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.equal((await host.client.call('adminListInstances')).data.length, 1, 'nothing was created');

    await page.goto(`${host.url}/dashboard/#/instances/${carol.id}/connect`);
    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete for good' }).click();
    await page.getByRole('heading', { name: 'Instances' }).waitFor();
    await page.getByText('No instance yet').waitFor();
    assert.deepEqual((await host.client.call('adminListInstances')).data, []);
  });

  it('keeps the views live by polling the API when the event stream is refused', async () => {
    const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    try {
      const polling = await context.newPage();
      polling.setDefaultTimeout(STEP_MS);
      // A server without the stream route: the dashboard must still follow what happens.
      await polling.route('**/admin/events*', (route) => route.fulfill({
        status: 404, contentType: 'application/json', body: JSON.stringify({ status: 404, error: { code: 'route_not_found', message: 'no route' } }),
      }));
      await polling.goto(`${host.url}/dashboard/`);
      await polling.getByLabel('Admin token').fill(host.adminToken);
      await polling.getByRole('button', { name: 'Sign in' }).click();
      await polling.getByText('Live: polling the API').waitFor();
      const dave = (await host.client.call('adminCreateInstance', { body: { channel: 'sandbox', name: 'dave', options: { number: '5511900000202' } } })).data;
      await polling.locator(`tr[data-instance="${dave.id}"] [data-state="disconnected"]`).waitFor();
      await host.client.instance(dave.key).call('connectInstance');
      await polling.locator(`tr[data-instance="${dave.id}"] [data-state="waiting_for_qr_scan"]`).waitFor();
      await host.client.call('sandbox_post_key_scan', { params: { key: dave.key }, body: {} });
      await polling.locator(`tr[data-instance="${dave.id}"] [data-state="open"]`).waitFor();
      await host.client.call('adminDeleteInstance', { params: { key: dave.key } });
    } finally {
      await context.close();
    }
  });

  it('lists the instances 50 to a page', async () => {
    for (let i = 0; i < 51; i++) {
      await host.client.call('adminCreateInstance', { body: { channel: 'sandbox', name: `bulk-${String(i).padStart(2, '0')}`, options: { number: `55119000003${String(i).padStart(2, '0')}` } } });
    }
    await page.goto(`${host.url}/dashboard/#/`);
    await page.getByText('Instances 1–50').waitFor();
    assert.equal(await page.locator('tr[data-instance]').count(), 50);
    assert.equal(await page.getByRole('button', { name: 'Previous page' }).isDisabled(), true);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Instances 51–51').waitFor();
    assert.equal(await page.locator('tr[data-instance] th').innerText(), 'bulk-50');
    assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText('Instances 1–50').waitFor();
  });

  it('signs out when the admin token stops working', async () => {
    await page.goto(`${host.url}/dashboard/#/`);
    await page.getByRole('heading', { name: 'Instances' }).waitFor();
    await page.evaluate(() => sessionStorage.setItem('parley.adminToken', 'a-token-the-server-no-longer-accepts'));
    await page.reload();
    await page.getByText('The admin token was refused (401): sign in again.').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    await page.getByLabel('Admin token').waitFor();
  });
});
