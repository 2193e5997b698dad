import type { ParleyServer } from './parley-server.js';

/** The start-up banner: where the API, the docs and the admin token are. Printed once to stdout. */
export function printBanner(server: ParleyServer, url: string): void {
  const { config, storage, drivers, formats, version, host } = server.context;
  const token = server.adminToken.source;
  const base = config.publicUrl ?? url;
  const lines = [
    '',
    `  Parley ${version} — messaging gateway`,
    '',
    `  API        ${base}`,
    `  Docs       ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
    `  Health     ${base}/healthz   ready: ${base}/readyz`,
    `  Storage    ${storage.name}   data dir: ${config.dataDir}`,
    `  Channels   ${[...drivers.keys()].join(', ')}   (default: ${config.defaultChannel})`,
    `  Webhooks   formats ${[...formats.keys()].join(', ')}${host.allowPrivateUrls ? '   private URLs ALLOWED' : ''}`,
    token.kind === 'env'
      ? '  Admin      token from PARLEY_ADMIN_TOKEN'
      : token.generated
        ? `  Admin      token generated and saved to ${token.path}:\n             ${server.adminToken.value}\n             (shown this once; read it from the file later)`
        : `  Admin      token in ${token.path}`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
