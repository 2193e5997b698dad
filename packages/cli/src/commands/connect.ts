import { clearScreenDown, moveCursor } from 'node:readline';
import { stripVTControlCharacters } from 'node:util';
import { Command, InvalidArgumentError, Option } from 'commander';
import { integer, withContext } from '../command-kit.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { followLink, pairingCheck, qrCheck, type FollowMode, type LinkUpdate } from '../link-updates.js';
import { describeInstance, resolveInstance } from '../resolve-instance.js';
import type { CliContext } from '../settings.js';
import { autoQrStyle, QR_STYLES, renderTerminalQr, type QrStyle } from '../terminal-qr.js';

interface ConnectOptions {
  pairingCode?: string;
  /** `true` (the network's default phone) or a phone number. */
  simulateScan?: string | true;
  timeout: number;
  qr: (typeof QR_STYLES)[number];
}

function phoneNumber(value: string): string {
  if (!/^\+?\d{6,15}$/.test(value)) throw new InvalidArgumentError('must be the phone number with country code, 6 to 15 digits (optional +)');
  return value.replace(/^\+/, '');
}

function userLine(user: unknown): string {
  const { id, name } = (user ?? {}) as { id?: string; name?: string };
  return id ? `${id.split(/[:@]/)[0]}${name ? ` (${name})` : ''}` : 'the account';
}

/** The terminal rows `text` takes: its lines, each wrapped at `columns` (when known). */
function terminalRows(text: string, columns: number | undefined): number {
  return text.split('\n').reduce((rows, line) => {
    const width = stripVTControlCharacters(line).length;
    return rows + (columns ? Math.max(1, Math.ceil(width / columns)) : 1);
  }, 0);
}

/** Writes what `connect` shows: NDJSON events with `--json`; otherwise text, the QR redrawn in place on a terminal. */
class LinkDisplay {
  private codes = 0;
  private drawnLines = 0;
  private lastStatus?: string;

  constructor(
    private readonly ctx: CliContext,
    private readonly style: QrStyle,
    private readonly what: string,
    private readonly timeoutS: number,
  ) {}

  private write(text: string): void {
    process.stdout.write(text);
  }

  private event(event: Record<string, unknown>): void {
    this.write(`${JSON.stringify(event)}\n`);
  }

  async qrcode(update: Extract<LinkUpdate, { kind: 'qrcode' }>): Promise<void> {
    this.codes++;
    this.lastStatus = undefined;
    if (this.ctx.json) return this.event({ event: 'qrcode', qrcode: update.qrcode, image: update.image });
    const qr = await renderTerminalQr(update.qrcode, this.style);
    const block = [
      `Scan this QR code with the phone to link ${this.what}`,
      '(WhatsApp: Settings > Linked devices > Link a device).',
      qr,
      `QR code ${this.codes}: waiting for the scan. A new code replaces it as the channel issues one.`,
      `Ctrl-C stops; ${this.timeoutS} s at most.`,
    ].join('\n');
    if (process.stdout.isTTY && this.drawnLines) {
      moveCursor(process.stdout, 0, -this.drawnLines);
      clearScreenDown(process.stdout);
    } else if (this.codes > 1) {
      this.write(`\nNew QR code (the previous one no longer links):\n`);
    }
    this.write(`${block}\n`);
    this.drawnLines = terminalRows(block, process.stdout.columns);
  }

  pairingCode(code: string, phone: string): void {
    if (this.ctx.json) return this.event({ event: 'pairing_code', code, phoneNumber: phone });
    this.write(`Pairing code for ${phone}: ${code}\nOn the phone: WhatsApp > Settings > Linked devices > Link a device > Link with phone number instead, and enter it. Waiting (${this.timeoutS} s at most; Ctrl-C stops)…\n`);
  }

  waiting(update: Extract<LinkUpdate, { kind: 'waiting' }>): void {
    const line = `${update.status}${update.lastError ? ` (last error: ${update.lastError})` : ''}`;
    if (line === this.lastStatus) return;
    this.lastStatus = line;
    if (this.ctx.json) return this.event({ event: 'waiting', status: update.status, ...(update.lastError ? { lastError: update.lastError } : {}) });
    this.write(`Connection: ${line}\n`);
    this.drawnLines = 0;
  }

  /** How updates arrive; said only when the event stream is given up for polling (stderr: it is not the command's output). */
  mode(mode: FollowMode, error?: unknown): void {
    if (mode !== 'poll') return;
    const why = error instanceof Error ? error.message : 'it ended';
    process.stderr.write(this.ctx.json
      ? `${JSON.stringify({ warning: `event stream unavailable (${why}): polling every second` })}\n`
      : `parley: the event stream is unavailable (${why}): polling every second instead\n`);
  }

  simulatedScan(phone: string): void {
    if (this.ctx.json) return this.event({ event: 'simulated_scan', phone });
    this.write(`The simulated phone +${phone} scanned the code.\n`);
  }

  linked(user: unknown, already: boolean): void {
    if (this.ctx.json) return this.event({ event: 'linked', phoneConnected: true, user, alreadyLinked: already });
    this.write(`${already ? 'Already linked' : 'Linked'}: ${this.what} is connected as ${userLine(user)}.\n`);
  }
}

/** `parley connect <instance>`: links an instance by QR code in the terminal (or a pairing code) and waits for the link. */
export function connectCommand(): Command {
  return new Command('connect').description('link an instance: show its QR code in the terminal, redrawn as new codes arrive, and wait until linked (exit 0)')
    .argument('<instance>', 'instance id, name or key (the key without an admin token)')
    .option('--pairing-code <number>', 'link with a pairing code for this phone number (country code, digits) instead of a QR code', phoneNumber)
    .option('--simulate-scan [phone]', 'on a simulated network (connection.simulator, docs/guides/whatsapp-offline.md): have its simulated phone (default the first) scan the QR code shown', phoneNumber)
    .option('--timeout <seconds>', 'give up (exit 6) when not linked after this long', integer(1, 86_400), 300)
    .addOption(new Option('--qr <style>', 'QR drawing: ansi (colours), text (blocks = dark), text-inverted (blocks = light); auto = ansi on a terminal without NO_COLOR, else text').choices(QR_STYLES).default('auto'))
    .action(withContext<ConnectOptions>(async (ctx, options, ref) => {
      const instance = await resolveInstance(ctx, ref!);
      const api = ctx.client.instance(instance.key);
      const style = options.qr === 'auto' ? autoQrStyle(process.stdout, process.env) : options.qr;
      const display = new LinkDisplay(ctx, style, describeInstance(instance), options.timeout);
      const deadline = performance.now() + options.timeout * 1000;
      if (options.pairingCode && options.simulateScan) throw new CliError('--simulate-scan scans a QR code: leave --pairing-code out', ExitCode.usage);
      if (options.pairingCode) {
        const { code } = await api.call('requestPairingCode', { body: { phoneNumber: options.pairingCode } });
        display.pairingCode(code, options.pairingCode);
      }
      const check = options.pairingCode ? pairingCheck(api) : qrCheck(api);
      const updates = followLink(check, { baseUrl: ctx.url, key: instance.key }, deadline, (mode, error) => display.mode(mode, error));
      let lastCode: string | undefined;
      let first = true;
      for await (const update of updates) {
        if (update.kind === 'linked') return display.linked(update.user, first && !options.pairingCode);
        first = false;
        if (update.kind === 'stopped') throw new CliError(`not linked: the connection stopped: ${update.reason}`, ExitCode.notReached);
        if (update.kind === 'waiting') display.waiting(update);
        else if (update.qrcode !== lastCode) {
          lastCode = update.qrcode;
          await display.qrcode(update);
          if (options.simulateScan) {
            const phone = options.simulateScan === true ? undefined : options.simulateScan;
            const scan = await api.call('simulatedScan', { body: phone ? { phone } : {} });
            display.simulatedScan(scan.phone);
            if (scan.phoneConnected) return display.linked((await api.call('getInstance')).instance.user, false);
          }
        }
      }
      throw new CliError(`not linked within ${options.timeout} s`, ExitCode.notReached);
    }));
}
