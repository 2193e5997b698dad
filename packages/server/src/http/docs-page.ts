import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** Directory of the bundled Swagger UI assets (served offline under `/docs/assets`). */
export function swaggerUiDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('swagger-ui-dist/package.json'));
}

/** The `/docs` page: Swagger UI over `/openapi.json`, with no external requests, under a bar linking the guides and the dashboard. */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Parley API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="stylesheet" href="/docs/guides.css">
</head>
<body>
  <nav class="parley-docs-nav">
    <a href="/docs/guides">Guides: getting started, sending, webhooks, event streams, clusters, moving from Evolution API</a>
    <a href="/dashboard/">Dashboard</a>
  </nav>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

/** Swagger UI start-up script (kept out of the HTML so a strict Content-Security-Policy works). */
export const DOCS_INIT_JS = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n`;
