/**
 * Writes the demo home's SQLite databases (Amazon Q and Kiro CLI, Cursor, OpenCode, Goose) into the fixture home
 * (their paths are gitignored: generated, never committed), from the hand-written fixtures:
 *   npx tsx scripts/make-demo-databases.ts [home]      (default: fixtures/home)
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeDemoDatabases } from '../test/helpers/demo-databases.ts';

const repo = fileURLToPath(new URL('..', import.meta.url));
const home = path.resolve(process.argv[2] ?? path.join(repo, 'fixtures', 'home'));
for (const file of await writeDemoDatabases(home)) console.log(path.relative(process.cwd(), file) || file);
