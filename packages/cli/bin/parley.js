#!/usr/bin/env node
// The `parley` command. The CLI itself is compiled to dist/; this file is not built, so that npm finds
// it and links it (executable) at install time, before the first build of a fresh clone.
await import('../dist/src/bin.js');
