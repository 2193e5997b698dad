#!/usr/bin/env node
// `npm start`, `parley-server`: the server with this distribution's plugins, configured by the environment and PARLEY_CONFIG.
import { runParley } from '../dist/src/index.js';

await runParley();
