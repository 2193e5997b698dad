import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import jsqr from 'jsqr';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`); `PARLEY_CHROMIUM` names another binary. */
export const CHROMIUM = process.env.PARLEY_CHROMIUM ?? '/usr/bin/chromium';

/** Flags for a headless Chromium in CI: no sandbox (root in a container), no GPU, no network of its own. */
export const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Where browser tests save their screenshots (`test/dist/screenshots/`, a build folder: CI keeps it as an artifact). */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../screenshots/', import.meta.url));

/**
 * Why browser tests cannot run here, or undefined when they can. A missing Chromium fails the suite
 * when services are required (CI: `.ci/run` installs it), and skips it otherwise.
 */
export function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set PARLEY_CHROMIUM)`;
  if (process.env.PARLEY_REQUIRE_SERVICES === '1') throw new Error(reason);
  return reason;
}

/** Launches the headless Chromium with {@link CHROMIUM_FLAGS}. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, timeout: 60_000 });
}

/** Signs the dashboard in `page` in with `token` (every tab has its own session storage, so each tab signs in). */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/dashboard/`);
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Instances' }).waitFor();
}

/** Saves a full-page screenshot as `<SCREENSHOT_DIR>/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = `${SCREENSHOT_DIR}${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Decodes the QR code an `<img>` of the page shows, from its pixels as the browser rendered the image
 * (drawn on a canvas in the page), with jsQR. Null when the image holds no readable code.
 */
export async function decodeQrImage(page: Page, selector: string): Promise<string | null> {
  const pixels = await page.$eval(selector, async (el) => {
    const img = el as HTMLImageElement;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const g = canvas.getContext('2d')!;
    g.fillStyle = '#fff';
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.drawImage(img, 0, 0);
    const data = g.getImageData(0, 0, canvas.width, canvas.height);
    return { width: data.width, height: data.height, data: Array.from(data.data) };
  });
  // jsqr is CommonJS: its function is the module's `default` member.
  return jsqr.default(Uint8ClampedArray.from(pixels.data), pixels.width, pixels.height)?.data ?? null;
}

/** An accessibility rule a page breaks, as axe-core reports it. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Checks the page as it is now with [axe-core](https://github.com/dequelabs/axe-core) against WCAG 2.1
 * A and AA (labels, names, roles, contrast, landmarks, …) and answers the violations.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) {
    await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
  }
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
}
