import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { WarningSink } from '../../util/warnings.ts';

/** One agent conversation's transcript files. */
export interface TranscriptGroup {
  id: string;
  /** The project folder name under `projects/`: the workspace path as a slug. */
  slug: string;
  /** `<uuid>/<uuid>.jsonl`, or the older `<uuid>.jsonl` / `<uuid>.txt` beside the folders. */
  main?: string;
  /** Other `.jsonl` files under `<uuid>/` (subagents). */
  subagents: string[];
  files: string[];
}

const TRANSCRIPT = /\.(jsonl|txt)$/;

/** Every conversation under `<cursorDir>/projects/<slug>/agent-transcripts/`. A `.jsonl` wins over a `.txt`.
 * Listed synchronously: a warm collect lists every conversation's folder, and a promise each costs more than
 * the listing. */
export async function listTranscripts(cursorDir: string, warn: WarningSink): Promise<TranscriptGroup[]> {
  const projects = path.join(cursorDir, 'projects');
  const groups: TranscriptGroup[] = [];
  for (const slug of await dirNames(projects, warn)) {
    const dir = path.join(projects, slug, 'agent-transcripts');
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR')
        warn({ file: dir, message: `could not list (${(error as Error).message}); skipped` });
      continue;
    }
    const byId = new Map<string, TranscriptGroup>();
    const group = (id: string) => {
      let g = byId.get(id);
      if (!g) byId.set(id, (g = { id, slug, subagents: [], files: [] }));
      return g;
    };
    for (const e of entries) {
      if (e.isFile() && TRANSCRIPT.test(e.name)) {
        const g = group(e.name.replace(TRANSCRIPT, ''));
        const file = path.join(dir, e.name);
        if (!g.main || (g.main.endsWith('.txt') && file.endsWith('.jsonl'))) g.main = file;
      } else if (e.isDirectory()) {
        const inner = path.join(dir, e.name);
        let files: import('node:fs').Dirent[];
        try {
          files = readdirSync(inner, { recursive: true, withFileTypes: true });
        } catch {
          files = [];
        }
        const g = group(e.name);
        for (const f of files) {
          if (!f.isFile() || !f.name.endsWith('.jsonl')) continue;
          const file = path.join(f.parentPath, f.name);
          if (f.parentPath === inner && f.name === `${e.name}.jsonl`) g.main = file;
          else g.subagents.push(file);
        }
      }
    }
    for (const g of byId.values()) {
      g.subagents.sort();
      g.files = [...(g.main ? [g.main] : []), ...g.subagents];
      if (g.files.length) groups.push(g);
    }
  }
  return groups.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

async function dirNames(dir: string, warn: WarningSink): Promise<string[]> {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      warn({ file: dir, message: `could not list (${(error as Error).message}); skipped` });
    return [];
  }
}
