#!/usr/bin/env node
import { runCli } from './program.js';

// The exit status is set rather than forced, so that output still being written is flushed; `parley
// start` keeps running with its server.
process.exitCode = await runCli(process.argv.slice(2));
