import path from 'node:path';
import { byCodeUnits, listEntries, readJsonFile, writeFileAtomic } from '../../util/fs.ts';
import { fileStamp } from '../../util/stamp.ts';
import type { SourceContext, SourceItem } from '../source.ts';
import { promptKey } from './content.ts';
import { readPromptLog } from '../prompt-log.ts';
import { CHECKPOINT_FILE, type SessionFiles } from './paths.ts';
import type { ProjectDirs } from './project.ts';
import { importModule } from '../../util/import-module.ts';

/**
 * The `/chat save` checkpoints of every project (docs/formats/gemini-cli.md, "Checkpoints"). A checkpoint whose
 * prompts a recorded session already holds (by the project's `logs.json`: every prompt typed, with its session)
 * adds nothing; any other is a session of its own. That a checkpoint was such a copy is kept beside the resume
 * states by the stamps of the checkpoint and of `logs.json`, so an unchanged copy is not read again.
 */
export async function* readCheckpoints(
  root: string,
  projects: Map<string, SessionFiles[]>,
  dirs: ProjectDirs,
  ctx: SourceContext,
): AsyncGenerator<SourceItem> {
  let stateFile: string | undefined;
  let copies: Map<string, string> | undefined;
  const after = new Map<string, string>();
  const unchanged: string[] = [];
  for (const [projectDir, sessions] of projects) {
    // Only what is about a checkpoint is warned about: the sessions' listing already speaks for the folder.
    const entries = await listEntries(projectDir, (w) => {
      if (CHECKPOINT_FILE.test(path.basename(w.file))) ctx.warn(w);
    });
    const files: string[] = [];
    for (const e of entries) {
      if (!CHECKPOINT_FILE.test(e.name)) continue;
      if (e.kind === 'file') files.push(e.path);
      else if (e.kind === 'special') ctx.warn({ file: e.path, message: `${e.what}, not a regular file; skipped` });
    }
    files.sort(byCodeUnits);
    let recorded: Set<string>[] | undefined;
    for (const file of files) {
      const ids = ctx.unchanged?.([file]);
      if (ids) {
        unchanged.push(...ids);
        continue;
      }
      const mark = `${fileStamp(file) ?? ''}|${fileStamp(path.join(projectDir, 'logs.json')) ?? ''}`;
      if (!copies) {
        stateFile = await stateFileOf(root, ctx);
        copies = await load(stateFile);
      }
      if (copies.get(file) === mark) {
        after.set(file, mark);
        continue;
      }
      await ctx.stamp?.(file);
      const { readCheckpoint } = await import('./checkpoint.ts');
      const checkpoint = await readCheckpoint(file, projectDir, dirs, ctx.warn);
      if (!checkpoint) {
        ctx.unavailable?.(file);
        continue;
      }
      recorded ??= await recordedPrompts(projectDir, sessions, ctx);
      const { prompts } = checkpoint;
      if (prompts.length > 0 && recorded.some((set) => prompts.every((p) => set.has(p)))) {
        after.set(file, mark);
        continue;
      }
      yield { kind: 'session', session: checkpoint.session };
    }
  }
  if (unchanged.length > 0) yield { kind: 'unchanged', sessionIds: unchanged };
  if (stateFile && copies && !sameMap(copies, after)) {
    await writeFileAtomic(stateFile, JSON.stringify({ root, copies: Object.fromEntries(after) }));
  }

  async function load(file: string | undefined): Promise<Map<string, string>> {
    const state = file ? await readJsonFile<{ root?: string; copies?: Record<string, string> }>(file) : undefined;
    return new Map(state?.root === root && state.copies ? Object.entries(state.copies) : []);
  }
}

/** The prompts of each recorded session of the project (one whose file is listed, or that the archive holds), by
 * the project's `logs.json`, as `promptKey`s. */
async function recordedPrompts(
  projectDir: string,
  sessions: SessionFiles[],
  ctx: SourceContext,
): Promise<Set<string>[]> {
  const names = sessions.flatMap((s) => (s.main ? [path.basename(s.main).replace(/\.jsonl?$/, '')] : []));
  const isRecorded = (id: string) =>
    ctx.archived.has(`gemini-cli/${id}`) || names.some((n) => n.endsWith(`-${id.slice(0, 8)}`));
  const bySession = new Map<string, Set<string>>();
  // Its bad entries are warned about where it is read for the prompt history.
  for (const p of await readPromptLog(path.join(projectDir, 'logs.json'), 'gemini-cli', '', () => {})) {
    if (!p.sessionId || !isRecorded(p.sessionId)) continue;
    const set = bySession.get(p.sessionId) ?? new Set<string>();
    set.add(promptKey(p.text));
    bySession.set(p.sessionId, set);
  }
  return [...bySession.values()];
}

/** Named by a digest of the data folder (node:crypto is loaded only when a checkpoint is looked at). */
async function stateFileOf(root: string, ctx: SourceContext): Promise<string | undefined> {
  if (!ctx.prepare) return undefined;
  const { createHash } = await importModule<typeof import('node:crypto')>('node:crypto');
  return ctx.prepare.resumePath(`gemini-checkpoints-${createHash('sha1').update(root).digest('hex').slice(0, 16)}`);
}

function sameMap(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}
