import { createHash } from 'node:crypto';
import path from 'node:path';
import { isObject } from './schema.ts';

/** The SHA-256 of a project's path: the name of its folder under `tmp/` (`Storage.getProjectTempDir`). */
export function projectHash(cwd: string): string {
  return createHash('sha256').update(cwd).digest('hex');
}

/** The project a `tmp/<hash>` folder stands for: the session folder whose SHA-256 is its name, else the name. */
export function projectOfTempDir(dir: string, cwds: Iterable<string>): string {
  const name = path.basename(dir);
  for (const cwd of cwds) if (projectHash(cwd) === name) return cwd;
  return name;
}

/** The folder each project's sessions ran in, from the first record of one of its files (only the head is read),
 * and whether every project's files named one. */
export async function projectCwds(files: readonly string[]): Promise<{ cwds: string[]; complete: boolean }> {
  const { readJsonl } = await import('../../util/jsonl.ts');
  const byProject = new Map<string, string>();
  for (const file of files) {
    const project = path.dirname(path.dirname(file));
    if (byProject.has(project)) continue;
    try {
      for await (const { value } of readJsonl(file, { chunkSize: 64 * 1024 })) {
        if (isObject(value) && typeof value.cwd === 'string' && value.cwd) {
          byProject.set(project, value.cwd);
          break;
        }
      }
    } catch {
      // Unreadable here: the session's own read says so.
    }
  }
  const projects = new Set(files.map((file) => path.dirname(path.dirname(file))));
  return { cwds: [...new Set(byProject.values())], complete: byProject.size === projects.size };
}
