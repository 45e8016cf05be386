/**
 * Writes the demo Amazon Q and Kiro CLI databases into the fixture home (both paths are gitignored: the
 * `.sqlite3` files are generated, never committed), from the hand-written fixtures/amazon-q/*.json:
 *   npx tsx scripts/make-demo-amazonq.ts [home]      (default: fixtures/home)
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeDemoDatabases } from '../test/helpers/amazonq-db.ts';

const repo = fileURLToPath(new URL('..', import.meta.url));
const home = path.resolve(process.argv[2] ?? path.join(repo, 'fixtures', 'home'));
for (const file of await writeDemoDatabases(home)) console.log(path.relative(process.cwd(), file) || file);
