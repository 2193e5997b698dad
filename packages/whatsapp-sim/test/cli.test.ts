import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { trustSimulatorRoot } from '../src/index.js';
import { TestClient, waitFor } from './client.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

describe('whatsapp-sim command', () => {
  it('runs a simulator in its own process that a Baileys client links to, and stops on SIGTERM; --group-addressing lid makes its groups LID-addressed', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, [CLI, '--port', '0', '--group-addressing', 'lid'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [line] = await once(createInterface({ input: child.stdout! }), 'line') as [string];
      const { websocketUrl, controlUrl, rootPublicKey } = JSON.parse(line) as Record<string, string>;
      const untrust = trustSimulatorRoot(Buffer.from(rootPublicKey!, 'base64'));
      try {
        const created = await fetch(`${controlUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"number":"5511987656001"}' });
        assert.equal(created.status, 201);
        const client = new TestClient(websocketUrl!);
        await client.link(async (qr) => {
          const res = await fetch(`${controlUrl}/accounts/5511987656001/scan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ qr }) });
          assert.equal(res.status, 200);
        });
        assert.equal(client.opened, true);
        await fetch(`${controlUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"number":"5511987656002"}' });
        const group = await client.sock!.groupCreate('Atacado', ['5511987656002@s.whatsapp.net']);
        assert.equal(group.addressingMode, 'lid');
        client.end();
        await waitFor(() => client.closed, 'the close');
      } finally {
        untrust();
      }
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      assert.equal(code, 0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  /** Runs the command with bad arguments: it must exit with 2 and say why. */
  async function refuses(args: string[], why: RegExp): Promise<void> {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
    const [code] = await once(child, 'exit');
    assert.equal(code, 2);
    assert.match(stderr, why);
  }

  it('refuses a port that is not a number', () => refuses(['--port', 'x'], /--port and --control-port must be integers/));

  it('refuses a group addressing other than pn and lid', () => refuses(['--group-addressing', 'phone'], /--group-addressing must be pn or lid/));
});
