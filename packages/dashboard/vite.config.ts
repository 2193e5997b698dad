import { defineConfig } from 'vite';

// Served by the Parley server under /dashboard; every asset is bundled (no CDN), with hashed names
// under assets/ so the server can cache them for a year.
export default defineConfig({
  base: '/dashboard/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', assetsInlineLimit: 0, reportCompressedSize: false },
});
