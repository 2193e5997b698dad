#!/usr/bin/env node
import { runServerProcess } from './app/run-server.js';

/** `npm start` — starts the server from the environment and `PARLEY_CONFIG` (the `parley start` of `@parley/cli` runs the same). */
await runServerProcess();
