import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startTestHost, type TestHost } from '@parley/testkit/host';

const README = fileURLToPath(new URL('../../../packages/client/README.md', import.meta.url));

/** The README's runnable examples: every ```ts block but the type-only ones, in order, as one ES module. */
function readmeScript(): string {
  const blocks = [...readFileSync(README, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.filter((block) => !block.startsWith('import type')).join('\n');
}

describe('packages/client/README.md', () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost({
      plugins: [{ package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }],
    });
  });
  after(() => host.stop());

  it('its examples run as written against a real server', async () => {
    // Beside this file, so that `@parley/client` resolves as it does for an installed package.
    const script = fileURLToPath(new URL(`./client-readme-example-${process.pid}.mjs`, import.meta.url));
    writeFileSync(script, readmeScript());
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [script], {
        env: { PATH: process.env.PATH ?? '', PARLEY_URL: host.url, PARLEY_ADMIN_TOKEN: host.adminToken }, timeout: 30_000,
      });
      assert.match(stdout, /'ins_\w+ alice sandbox',\s+'ins_\w+ bob sandbox'\s+\] undefined\n/);
      assert.match(stdout, /^false waiting_for_qr_scan 2@/m);
      assert.match(stdout, /hello bob/);
      assert.match(stdout, /^event \w+ message .*are you there\?/m);
      assert.match(stdout, /^400 validation_failed body\.to /m);
      assert.match(stdout, /^unknown instance 404$/m);
    } finally {
      rmSync(script, { force: true });
    }
    const { data } = await host.client.call('adminListInstances');
    assert.deepEqual(data, [], 'the example deleted what it created');
  });
});
