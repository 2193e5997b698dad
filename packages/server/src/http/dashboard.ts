import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Logger } from '@parley/core';
import { sendError } from './error-handler.js';
import type { MatchedRequest } from './router.js';

/** Where the dashboard is served. */
export const DASHBOARD_PATH = '/dashboard';

/** The built dashboard (`@parley/dashboard`'s `dist/app`), or why there is none. */
export type DashboardFiles = { dir: string } | { missing: string };

/** The dashboard built into `dir` (its `index.html` and `assets/`), or why it is not there. */
export function dashboardFiles(dir: string): DashboardFiles {
  return existsSync(join(dir, 'index.html')) ? { dir } : { missing: `it is not built (no ${join(dir, 'index.html')}): run \`npm run build\`` };
}

/** Finds the built dashboard: `npm run build` builds `@parley/dashboard` into its `dist/app` with Vite. */
export function findDashboard(): DashboardFiles {
  try {
    return dashboardFiles(join(dirname(createRequire(import.meta.url).resolve('@parley/dashboard/package.json')), 'dist', 'app'));
  } catch {
    return { missing: 'the @parley/dashboard package is not installed' };
  }
}

/** Immutable: Vite names every asset after its content hash, so a changed file gets a new name. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/**
 * The dashboard's own headers: a Content-Security-Policy that allows only this server (every asset is
 * served here; QR codes are data: URIs; media previews may be any https image), no framing, no
 * referrer (the page's address never leaves the server), no MIME sniffing.
 */
function securityHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy',
    "default-src 'self'; img-src 'self' data: https:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
}

/**
 * Serves the built dashboard under `/dashboard`: `index.html` (revalidated on every load, so a new
 * build is picked up at once) at `/dashboard` and `/dashboard/`, hashed assets under
 * `/dashboard/assets/` cached for a year, content types from the file extensions. Without a build it
 * answers 503 `dashboard_not_built` saying how to build it, and logs that once at start-up; the API
 * is unaffected.
 */
export function dashboardRouter(files: DashboardFiles, logger: Logger): Router {
  const router = express.Router({ strict: true });
  // Metrics and the request log name these requests `/dashboard`, not `unmatched`.
  router.use((req: Request, _res: Response, next: NextFunction) => {
    (req as MatchedRequest).parleyRoute = DASHBOARD_PATH;
    next();
  });
  if ('missing' in files) {
    logger.warn({ path: DASHBOARD_PATH }, `dashboard not served: ${files.missing}; the REST API is unaffected`);
    router.use((_req: Request, res: Response) => {
      sendError(res, 503, 'dashboard_not_built', `the dashboard is not available: ${files.missing}`);
    });
    return router;
  }
  const index = join(files.dir, 'index.html');
  const sendIndex = (_req: Request, res: Response) => {
    securityHeaders(res);
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  };
  router.get('/', sendIndex);
  router.get('/index.html', sendIndex);
  router.use('/assets', express.static(join(files.dir, 'assets'), {
    index: false, etag: true, lastModified: false, immutable: true, maxAge: '365d',
    setHeaders: (res) => {
      res.setHeader('Cache-Control', ASSET_CACHE);
      res.setHeader('X-Content-Type-Options', 'nosniff');
    },
  }));
  router.use((req: Request, res: Response) => {
    sendError(res, 404, 'route_not_found', `no dashboard file ${basename(req.path) || req.path}: the dashboard starts at ${DASHBOARD_PATH}/`);
  });
  return router;
}
