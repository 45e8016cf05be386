#!/usr/bin/env node
// Thin launcher: the CLI is TypeScript, loaded through tsx so that no build step is needed.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
