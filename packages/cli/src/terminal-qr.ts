import QRCode from 'qrcode';

/**
 * How `connect` draws a QR code:
 * - `ansi`: half-block characters with explicit black-on-white colours (ANSI SGR): right on dark and
 *   light terminal themes alike; the default on a terminal unless `NO_COLOR` is set.
 * - `text`: half-block characters for dark modules, no colours, a 4-module quiet zone of spaces: right
 *   on a light background (and on paper); the default when stdout is not a terminal.
 * - `text-inverted`: the same with the block characters drawing the light modules: right on a dark
 *   background without colours.
 */
export type QrStyle = 'ansi' | 'text' | 'text-inverted';

export const QR_STYLES = ['auto', 'ansi', 'text', 'text-inverted'] as const;

/** The style `auto` stands for on this output. */
export function autoQrStyle(out: Pick<NodeJS.WriteStream, 'isTTY'>, env: NodeJS.ProcessEnv): QrStyle {
  return out.isTTY && !env.NO_COLOR ? 'ansi' : 'text';
}

/**
 * Renders a QR code for the terminal with the `qrcode` package's own terminal and UTF-8 renderers
 * (two modules per character cell), at error-correction level L: the smallest symbol, as WhatsApp's
 * codes are drawn. Ends without a newline.
 */
export async function renderTerminalQr(value: string, style: QrStyle): Promise<string> {
  if (style === 'ansi') return (await QRCode.toString(value, { type: 'terminal', small: true, errorCorrectionLevel: 'L' })).replace(/\n$/, '');
  const inverted = style === 'text-inverted' ? { color: { dark: '#ffffff', light: '#000000' } } : {};
  return QRCode.toString(value, { type: 'utf8', margin: 4, errorCorrectionLevel: 'L', ...inverted });
}
