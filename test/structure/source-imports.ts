import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, relative, resolve } from 'node:path';

/**
 * Static imports and re-exports of a TypeScript module, `import type` and `export type … from` included
 * (the compiled JavaScript no longer holds those, so a circle made only of types is seen only here).
 * A statement is matched from the start of a line up to its `from '…'`, across lines, never past a `;`.
 */
const IMPORT = /^[ \t]*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]|^[ \t]*import\s*['"]([^'"]+)['"]/gm;

/** Every module specifier `source` imports or re-exports statically. */
function specifiersOf(source: string): string[] {
  return [...source.matchAll(IMPORT)].map((match) => match[1] ?? match[2]!);
}

/** The source file a relative specifier names (`./x.js` → `./x.ts`, `./dir` → `./dir/index.ts`), if it exists. */
function resolveSource(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, `${base}/index.ts`];
  return candidates.find((file) => existsSync(file));
}

/** The module graph of `files` by their relative imports (package imports are other graphs' business). */
export function sourceGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets: string[] = [];
    for (const specifier of specifiersOf(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = resolveSource(file, specifier);
      if (target) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components of more than one module (Tarjan), each as paths relative to `root`. */
export function importCircles(graph: Map<string, string[]>, root: string): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(relative(root, member));
    } while (member !== node);
    if (component.length > 1) circles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
}

/** What {@link undeclaredImports} reads of a package.json. */
export interface Manifest {
  name: string;
  private?: boolean;
  main?: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/**
 * The package imports of `files` (`import type` included: a published declaration file names them too)
 * that `manifest` declares neither as a dependency nor as a peer: what an installed copy would not find.
 */
export function undeclaredImports(files: readonly string[], manifest: Manifest): { file: string; specifier: string }[] {
  const declared = new Set([manifest.name, ...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  return files.flatMap((file) => specifiersOf(readFileSync(file, 'utf8'))
    .filter((specifier) => {
      if (specifier.startsWith('.') || specifier.startsWith('node:')) return false;
      const parts = specifier.split('/');
      const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
      return !builtinModules.includes(name) && !declared.has(name);
    })
    .map((specifier) => ({ file, specifier })));
}
