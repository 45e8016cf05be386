import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readFailure } from '../../util/fs.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { Findings } from './normalize.ts';
import { isObject, type GeminiSessionMeta } from './schema.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const HASH = /^[0-9a-f]{64}$/;
const MAX_SMALL_FILE = 1024 * 1024;

/**
 * Which folder a project under `tmp/` belongs to. Older versions named it the SHA-256 of the project's root path
 * (`getProjectHash`), newer ones a short name (`ProjectRegistry`: `projects.json` maps the path to the name and
 * `tmp/<name>/.project_root` holds the path). The session header's `projectHash` is the SHA-256 in both.
 * In order: `.project_root`; `projects.json`; a path whose SHA-256 is the hash (the registry's paths, the
 * session's `directories`, the folders its `<session_context>` names, every parent of an absolute path its tool
 * calls used); the first folder the session names; else the folder's own name.
 */
export class ProjectDirs {
  private readonly bySlug = new Map<string, string>();
  /** The registry's paths by SHA-256, made when a hash is first looked up (a warm collect looks up none, and
   * then does not load node:crypto). */
  private byHashMemo: Map<string, string> | undefined;
  private readonly registered: string[] = [];
  private readonly roots = new Map<string, string | undefined>();

  private constructor(private readonly warn: WarningSink) {}

  static async load(root: string, warn: WarningSink): Promise<ProjectDirs> {
    const dirs = new ProjectDirs(warn);
    const file = path.join(root, 'projects.json');
    const text = await dirs.readSmall(file);
    if (text !== undefined) {
      try {
        const data = JSON.parse(text) as unknown;
        const projects = isObject(data) && isObject(data.projects) ? data.projects : undefined;
        if (!projects) warn({ file, message: 'no "projects" object; project folders are told another way' });
        for (const [dir, slug] of Object.entries(projects ?? {})) {
          if (typeof slug !== 'string') continue;
          dirs.bySlug.set(slug, dir);
          dirs.registered.push(dir);
        }
      } catch (error) {
        warn({ file, message: `not valid JSON (${(error as Error).message}); project folders are told another way` });
      }
    }
    return dirs;
  }

  async cwdOf(projectDir: string, meta: GeminiSessionMeta, findings: Findings): Promise<string> {
    const name = path.basename(projectDir);
    if (!this.roots.has(projectDir)) {
      const text = await this.readSmall(path.join(projectDir, '.project_root'));
      this.roots.set(projectDir, text?.trim() || undefined);
    }
    const marked = this.roots.get(projectDir) ?? this.bySlug.get(name);
    if (marked) return marked;
    const hash = meta.projectHash && HASH.test(meta.projectHash) ? meta.projectHash : HASH.test(name) ? name : '';
    const named = [...(meta.directories ?? []), ...findings.contextDirs];
    if (hash) {
      this.byHashMemo ??= new Map(this.registered.map((dir) => [sha256(dir), dir]));
      const known = this.byHashMemo.get(hash);
      if (known) return known;
      for (const candidate of [...named, ...findings.toolPaths.flatMap(ancestors)]) {
        if (sha256(candidate) === hash) return candidate;
      }
    }
    return named[0] ?? name;
  }

  /** A small file's text; undefined when absent (a read error is warned about). */
  private async readSmall(file: string): Promise<string | undefined> {
    try {
      const stat = await fs.stat(file);
      if (!stat.isFile() || stat.size > MAX_SMALL_FILE) return undefined;
      return await fs.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') warn(this.warn, file, error);
      return undefined;
    }
  }
}

function warn(sink: WarningSink, file: string, error: unknown): void {
  sink({ file, message: `${readFailure(error)}; skipped` });
}

/** Every parent folder of a path, nearest first, written with the path's own separators (`/a/b/c` → `/a/b`, `/a`,
 * `/`; `C:\a\b` → `C:\a`, `C:\`). */
export function ancestors(p: string): string[] {
  const out: string[] = [];
  for (let i = p.length - 1; i > 0; i--) {
    if (p[i] !== '/' && p[i] !== '\\') continue;
    const parent = p.slice(0, i);
    out.push(/^[A-Za-z]:$/.test(parent) ? `${parent}${p[i]}` : parent);
  }
  if (p.startsWith('/')) out.push('/');
  return [...new Set(out.filter(Boolean))];
}
