import { fileURLToPath } from 'node:url';

/** What `npm start` runs: the bin of `@parley/distribution` (`parley start` of `@parley/cli` runs the same function). */
export const SERVER_BIN = fileURLToPath(new URL('../../bin/parley-server.js', import.meta.resolve('@parley/distribution')));
