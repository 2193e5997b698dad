import { defineConfig } from 'vite';

// Served by the Parley server under /dashboard; every asset is bundled (no CDN), with hashed names
// under assets/ so the server can cache them for a year. The app goes to dist/app; dist/src holds the
// modules tsc emits while type-checking (the repository's import-circle check reads them).
export default defineConfig({
  base: '/dashboard/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist/app', emptyOutDir: true, target: 'es2022', assetsInlineLimit: 0, reportCompressedSize: false },
});
