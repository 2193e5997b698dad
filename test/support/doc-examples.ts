import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Lexer, type Tokens } from 'marked';

/** The repository's `docs/` directory. */
export const DOCS_DIR = fileURLToPath(new URL('../../../docs/', import.meta.url));

/**
 * One step of a guide, in reading order. The guides' convention (docs/README.md, "How the guides are tested"):
 * - every ```sh block runs, in order, in one shell per guide;
 * - a ```text block right after a ```sh block is its expected output (`…` stands for anything);
 * - a block after `<!-- file: NAME -->` is saved as NAME in the guide's working directory;
 * - a ```sh or ```js block after `<!-- not-run: REASON -->` is not run, and says why;
 * - `<!-- server: NAME -->` starts the guide's server with the config of the file block NAME;
 * - `<!-- redis-prefix: PREFIX -->`: the guide keeps data in Redis under PREFIX (the test needs Redis
 *   and deletes those keys before and after);
 * - `<!-- setup: alice-and-bob -->`: the page's examples start from two connected sandbox instances,
 *   alice (5511900000001, key in `A`) and bob (5511900000002, key in `C`), made as Getting started
 *   makes them (the reference pages' examples, which do not repeat that);
 * - `<!-- setup: whatsapp-simulator -->`: the server runs the plugins of
 *   `examples/config.whatsapp-sim.json` (WhatsApp on a simulator in the server's process).
 * Reference pages (`docs/*.md`) follow the same convention.
 */
export type GuideStep =
  | { kind: 'run'; code: string; expect?: string; line: number }
  | { kind: 'file'; name: string; code: string; line: number }
  | { kind: 'not-run'; reason: string; lang: string; line: number };

/** A parsed guide: its steps, the config file its server starts with, and blocks that break the convention. */
export interface Guide {
  name: string;
  steps: GuideStep[];
  serverConfig?: string;
  redisPrefix?: string;
  setup?: 'alice-and-bob' | 'whatsapp-simulator';
  problems: string[];
}

const DIRECTIVE = /^<!--\s*(file|not-run|server|redis-prefix|setup):\s*(.*?)\s*-->\s*$/;
/** Languages of blocks a reader runs: each must be run, saved as a file, or marked not-run. */
const RUNNABLE = new Set(['sh', 'js']);

/** The guides: every `docs/guides/*.md` but the index. */
export function guideNames(): string[] {
  return readdirSync(join(DOCS_DIR, 'guides')).filter((f) => f.endsWith('.md') && f !== 'README.md').map((f) => f.slice(0, -3)).sort();
}

/** Every page whose examples the convention covers: the guides (`guides/<name>`) and the reference pages (`<name>`). */
export function docNames(): string[] {
  const reference = readdirSync(DOCS_DIR).filter((f) => f.endsWith('.md') && f !== 'README.md').map((f) => f.slice(0, -3)).sort();
  return [...guideNames().map((n) => `guides/${n}`), ...reference];
}

/** Reads and parses `docs/<name>.md` (`guides/getting-started`, `queue`). */
export function readGuide(name: string): Guide {
  return parseGuide(name, readFileSync(join(DOCS_DIR, `${name}.md`), 'utf8'));
}

/** Parses a guide's markdown into its steps (see {@link GuideStep}). */
export function parseGuide(name: string, markdown: string): Guide {
  const guide: Guide = { name, steps: [], problems: [] };
  let directive: { verb: string; arg: string } | undefined;
  let line = 1;
  let afterRun = false;
  for (const token of new Lexer().lex(markdown)) {
    const at = line;
    line += token.raw.split('\n').length - 1;
    if (token.type === 'space') continue;
    if (token.type === 'html') {
      const match = DIRECTIVE.exec(token.raw.trim());
      if (match?.[1] === 'server') guide.serverConfig = match[2];
      else if (match?.[1] === 'redis-prefix') guide.redisPrefix = match[2];
      else if (match?.[1] === 'setup') {
        if (match[2] === 'alice-and-bob' || match[2] === 'whatsapp-simulator') guide.setup = match[2];
        else guide.problems.push(`${name}.md:${at}: unknown setup ${match[2]}`);
      }
      else if (match) directive = { verb: match[1]!, arg: match[2]! };
      continue;
    }
    const pending = directive;
    const follows = afterRun;
    directive = undefined;
    afterRun = false;
    if (token.type !== 'code') continue;
    const { lang = '', text } = token as Tokens.Code;
    const previous = guide.steps.at(-1);
    if (pending?.verb === 'file') guide.steps.push({ kind: 'file', name: pending.arg, code: `${text}\n`, line: at });
    else if (pending?.verb === 'not-run') {
      if (!pending.arg) guide.problems.push(`${name}.md:${at}: a not-run block must say why`);
      guide.steps.push({ kind: 'not-run', reason: pending.arg, lang, line: at });
    } else if (lang === 'sh') {
      guide.steps.push({ kind: 'run', code: text, line: at });
      afterRun = true;
    } else if (lang === 'text' && follows && previous?.kind === 'run') previous.expect = text;
    else if (RUNNABLE.has(lang)) guide.problems.push(`${name}.md:${at}: a \`\`\`${lang} block is neither run, saved with <!-- file: … -->, nor marked <!-- not-run: … -->`);
  }
  return guide;
}

/**
 * Whether `actual` output shows every line of `expected`, in order (other lines may come between):
 * each expected line matches one whole output line, `…` matching any text. Answers the first expected
 * line not found, or undefined when all are.
 */
export function missingOutput(expected: string, actual: string): string | undefined {
  const lines = actual.split('\n').map((l) => l.trimEnd());
  let at = 0;
  for (const want of expected.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '')) {
    const pattern = new RegExp(`^${want.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    while (at < lines.length && !pattern.test(lines[at]!)) at++;
    if (at === lines.length) return want;
    at++;
  }
  return undefined;
}
