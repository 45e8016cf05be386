import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Whether `<root>/dist-cli` was bundled from the `<root>/src` there is now. The bundle lists the folders and files
 * it was made from (dist-cli/sources.txt, by scripts/bundle-cli.mjs): an edited file is newer than the bundle, and
 * a file added, removed or renamed makes its folder newer. Stats of the listed paths cost a third of what
 * listing src/ again on every command did.
 * @param {string} root the package's folder
 * @returns {boolean}
 */
export function bundleIsFresh(root) {
  try {
    const built = statSync(path.join(root, 'dist-cli', 'main.cjs')).mtimeMs;
    const listed = readFileSync(path.join(root, 'dist-cli', 'sources.txt'), 'utf8')
      .split('\n')
      .filter(Boolean);
    for (const relative of listed) {
      const stat = statSync(path.join(root, relative), { throwIfNoEntry: false });
      if (!stat || stat.mtimeMs > built) return false;
    }
    return listed.length > 0;
  } catch {
    return false;
  }
}
