#!/usr/bin/env node
// Launcher: the bundled CLI (dist-cli/, made by `npm install`) when it is up to date with src/, else the
// TypeScript sources through tsx.
import v8 from 'node:v8';
import { fileURLToPath } from 'node:url';
import { bundleIsFresh } from './bundle-fresh.js';

// The young generation grows to its full size at its first scavenge instead of doubling at each: a short command
// (a collect that finds nothing new) then scavenges half as often and promotes less, which spares it the
// old-generation collection it otherwise ends with; a long one reaches that size anyway.
v8.setFlagsFromString('--semi-space-growth-factor=16');

let main;
if (process.env.AGENT_LOGBOOK_FROM_SOURCE !== '1' && bundleIsFresh(fileURLToPath(new URL('..', import.meta.url)))) {
  ({ main } = await import('../dist-cli/main.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
