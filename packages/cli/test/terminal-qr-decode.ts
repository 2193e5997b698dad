import jsQRModule from 'jsqr';
import type { QrStyle } from '../src/terminal-qr.js';

type JsQr = typeof import('jsqr').default;
// jsqr is CommonJS: its module object is the function (types describe it as the default export).
const jsQR = ((jsQRModule as unknown as { default?: JsQr }).default ?? jsQRModule) as JsQr;

/** One character cell: its top and bottom pixel, true = dark. */
type Cell = [boolean, boolean];

const HALF_BLOCKS: Record<string, Cell> = { ' ': [false, false], '▀': [true, false], '▄': [false, true], '█': [true, true] };

/** Cells of a line of plain half-block text; `inverted`: the glyphs draw light modules. */
function textCells(line: string, inverted: boolean): Cell[] {
  return [...line].map((ch) => {
    const [top, bottom] = HALF_BLOCKS[ch]!;
    return [top !== inverted, bottom !== inverted];
  });
}

/**
 * Cells of a line drawn with ANSI colours, as a terminal shows them: SGR 30/37 set the glyph colour
 * (black/white), 40/47 the background, 0 resets to the terminal's defaults (counted as light: they
 * only ever surround the symbol's own white border).
 */
function ansiCells(line: string): Cell[] {
  const cells: Cell[] = [];
  let fg = false;
  let bg = false;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '\x1b') {
      const match = /^\x1b\[([\d;]*)m/.exec(line.slice(i));
      if (!match) throw new Error(`unexpected escape sequence at ${i}: ${JSON.stringify(line.slice(i, i + 8))}`);
      for (const code of match[1]!.split(';').map(Number)) {
        if (code === 0) fg = bg = false;
        else if (code === 30) fg = true;
        else if (code === 37) fg = false;
        else if (code === 40) bg = true;
        else if (code === 47) bg = false;
        else throw new Error(`unexpected SGR code ${code}`);
      }
      i += match[0].length - 1;
      continue;
    }
    const ch = line[i]!;
    if (ch === ' ') cells.push([bg, bg]);
    else if (ch === '█') cells.push([fg, fg]);
    else if (ch === '▀') cells.push([fg, bg]);
    else if (ch === '▄') cells.push([bg, fg]);
    else throw new Error(`unexpected character ${JSON.stringify(ch)} in a QR line`);
  }
  return cells;
}

/** Pixel rows (true = dark) of every QR code drawn in a terminal output, in order. */
export function qrBitmapsOf(output: string, style: QrStyle): boolean[][][] {
  const isQrLine = style === 'ansi' ? (line: string) => line.includes('\x1b[') : (line: string) => /^[ ▀▄█]+$/.test(line);
  const blocks: string[][] = [];
  let current: string[] | undefined;
  for (const line of output.split('\n')) {
    if (isQrLine(line)) (current ??= []).push(line);
    else if (current) {
      blocks.push(current);
      current = undefined;
    }
  }
  if (current) blocks.push(current);
  return blocks
    .map((lines) => lines.map((line) => (style === 'ansi' ? ansiCells(line) : textCells(line, style === 'text-inverted'))).filter((cells) => cells.length > 0))
    .filter((rows) => rows.some((cells) => cells.some(([top, bottom]) => top || bottom)))
    .map((rows) => rows.flatMap((cells) => [cells.map(([top]) => top), cells.map(([, bottom]) => bottom)]));
}

/** Decodes a bitmap with jsQR: each module drawn 4 × 4 pixels inside an 8-module light margin. */
export function decodeBitmap(bitmap: boolean[][]): string | undefined {
  const scale = 4;
  const margin = 8;
  const modulesWide = Math.max(...bitmap.map((row) => row.length)) + 2 * margin;
  const modulesHigh = bitmap.length + 2 * margin;
  const width = modulesWide * scale;
  const height = modulesHigh * scale;
  const pixels = new Uint8ClampedArray(width * height * 4).fill(255);
  bitmap.forEach((row, y) => row.forEach((dark, x) => {
    if (!dark) return;
    for (let dy = 0; dy < scale; dy++) {
      for (let dx = 0; dx < scale; dx++) {
        const at = (((y + margin) * scale + dy) * width + (x + margin) * scale + dx) * 4;
        pixels[at] = pixels[at + 1] = pixels[at + 2] = 0;
      }
    }
  }));
  return jsQR(pixels, width, height, { inversionAttempts: 'dontInvert' })?.data;
}

/** Every QR code drawn in the output, decoded (undefined where one does not decode). */
export function decodeTerminalQrs(output: string, style: QrStyle): (string | undefined)[] {
  return qrBitmapsOf(output, style).map(decodeBitmap);
}
