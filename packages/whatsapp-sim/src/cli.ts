#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { startSimulator } from './start.js';
import type { AddressingMode } from './features/group-addressing.js';

/**
 * `whatsapp-sim [--port N] [--control-port N] [--host H] [--group-addressing pn|lid]`: runs a simulator until
 * SIGINT/SIGTERM and prints one JSON line with the WebSocket URL, the control URL and the root public key
 * (base64), for a bot or a CI job in another process. `--group-addressing lid` makes the groups clients create
 * LID-addressed, as WhatsApp creates them now (`startSimulator`'s `groupAddressing`; `pn` by default).
 */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' }, 'control-port': { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' },
    'group-addressing': { type: 'string', default: 'pn' },
  },
});
const port = Number(values.port);
const controlPort = Number(values['control-port']);
if (![port, controlPort].every((p) => Number.isInteger(p) && p >= 0 && p < 65536)) {
  console.error('whatsapp-sim: --port and --control-port must be integers from 0 to 65535');
  process.exit(2);
}
const groupAddressing = values['group-addressing'];
if (groupAddressing !== 'pn' && groupAddressing !== 'lid') {
  console.error('whatsapp-sim: --group-addressing must be pn or lid');
  process.exit(2);
}
const running = await startSimulator({ host: values.host, port, controlPort, groupAddressing: groupAddressing as AddressingMode });
console.log(JSON.stringify({ websocketUrl: running.url, controlUrl: running.controlUrl, rootPublicKey: running.rootPublicKey.toString('base64') }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void running.stop().then(() => process.exit(0)));
}
