import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

const requireHere = createRequire(import.meta.url);

/**
 * better-sqlite3's constructor, loaded on first use: its native addon takes ~30 ms to load, which a command
 * that opens no database (a collect that finds every database unchanged) should not pay.
 */
export function sqlite(): typeof Database {
  return requireHere('better-sqlite3') as typeof Database;
}
