#!/usr/bin/env node
// Launcher: the bundled CLI (dist-cli/, made by `npm install`) when it is up to date with src/, else the
// TypeScript sources through tsx.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleIsFresh } from './bundle-fresh.js';
import { loadBundle, tuneV8 } from './bundle-load.js';

tuneV8();
const root = fileURLToPath(new URL('..', import.meta.url));
let main;
if (process.env.AGENT_LOGBOOK_FROM_SOURCE !== '1' && bundleIsFresh(root)) {
  ({ main } = loadBundle(path.join(root, 'dist-cli')));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
