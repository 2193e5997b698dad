// Fails when any import circle exists among the packages' and plugins' sources (issue 13).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
require('./madge-typescript.cjs');
const madge = require('madge');

const roots = ['packages', 'plugins'];
const result = await madge(roots, { fileExtensions: ['ts'], excludeRegExp: [/\/dist\//, /\/test\//, /node_modules/, /\.d\.ts$/] });
const circles = result.circular();
for (const circle of circles) console.log(circle.join(' -> '));
console.log(`${circles.length} import circle(s)`);
process.exitCode = circles.length === 0 ? 0 : 1;
