import { DASHBOARD_PATH } from '../http/dashboard.js';
import type { MediaRepository, MediaStore } from '@parley/core';
import type { ParleyServer } from './parley-server.js';

/** Where the banner goes: stdout, or any stream that says whether it is a terminal. */
export type BannerOutput = Pick<NodeJS.WriteStream, 'isTTY' | 'write'>;

/**
 * The start-up banner: where the API, the docs and the admin token are. Printed once to stdout. A
 * generated admin token is shown only on a terminal: stdout that is a pipe or a file usually ends in
 * a log collector, where a secret must not go; the banner then says where the token was saved.
 */
export function printBanner(server: ParleyServer, url: string, out: BannerOutput = process.stdout): void {
  const { config, storage, drivers, formats, version, host } = server.context;
  const token = server.adminToken.source;
  const base = config.publicUrl ?? url;
  const { dashboard } = server;
  const lines = [
    '',
    `  Parley ${version} — messaging gateway`,
    '',
    `  API        ${base}`,
    'dir' in dashboard ? `  Dashboard  ${base}${DASHBOARD_PATH}/` : `  Dashboard  not served: ${dashboard.missing}`,
    `  Docs       ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
    `  Health     ${base}/healthz   ready: ${base}/readyz`,
    `  Storage    ${storage.name}${storage.location ? ` ${storage.location}` : ''}   data dir: ${config.dataDir}`,
    ...mediaLines(storage.media),
    ...clusterLines(server),
    `  Channels   ${[...drivers.keys()].join(', ')}   (default: ${config.defaultChannel})`,
    `  Webhooks   formats ${[...formats.keys()].join(', ')}${host.allowPrivateUrls ? '   private URLs ALLOWED' : ''}`,
    token.kind === 'env'
      ? '  Admin      token from PARLEY_ADMIN_TOKEN'
      : !token.generated
        ? `  Admin      token in ${token.path}`
        : out.isTTY
          ? `  Admin      token generated and saved to ${token.path}:\n             ${server.adminToken.value}\n             (shown this once; read it from the file later)`
          : `  Admin      token generated and saved to ${token.path}\n             (not shown: stdout is not a terminal; read it from the file)`,
    '',
  ];
  out.write(`${lines.join('\n')}\n`);
}

/**
 * A cluster node says so: its id and address, the store the nodes coordinate through, and the live
 * peers it saw when it joined (the dashboard's cluster page shows them as they change).
 */
function clusterLines(server: ParleyServer): string[] {
  const { cluster, storage } = server.context;
  if (!cluster) return [];
  const peers = cluster.nodes().filter((node) => node.alive && node.id !== cluster.id);
  return [
    `  Cluster    node ${cluster.id} at ${cluster.info.address}, coordinated through ${storage.name}${storage.location ? ` ${storage.location}` : ''}`,
    `             peers: ${peers.length === 0 ? 'none alive yet' : peers.map((peer) => `${peer.id} ${peer.address}`).join(', ')}`,
  ];
}

/** The media store's line, when a `kind: 'media'` plugin keeps media apart from the storage. */
function mediaLines(media: MediaRepository): string[] {
  const store = media as Partial<MediaStore>;
  return typeof store.name === 'string' && typeof store.location === 'string' ? [`  Media      ${store.name} ${store.location}`] : [];
}
