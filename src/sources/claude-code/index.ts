import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { HistoryPrompt } from '../../model/session.ts';
import { readFailure } from '../../util/fs.ts';
import { readJsonl } from '../../util/jsonl.ts';
import { saneIsoFromMs, TIME_RANGE_TEXT } from '../../util/time.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
import { listProjectDir, listProjectDirs, locateClaude, type SessionFiles } from './paths.ts';
import type { ClaudeHistoryLine, ClaudeRecord } from './schema.ts';
import type { Session } from '../../model/session.ts';
import type { SessionTask, SessionTaskResult, SessionWorkerData } from './session-worker.ts';
import { defaultThreads, WorkerPool, workerFile } from '../../util/worker-pool.ts';

export const claudeCode: Source = {
  id: 'claude-code',
  label: 'Claude Code',
  locate: locateClaude,
  read: readClaude,
};

async function* readClaude(location: SourceLocation, ctx: SourceContext): AsyncGenerator<SourceItem> {
  for (const root of location.found) {
    const projectDirs = await listProjectDirs(root, ctx.warn);
    const listings = await Promise.all(projectDirs.map((dir) => listProjectDir(dir, ctx.warn)));
    const toRead: SessionFiles[] = [];

    for (const listing of listings) {
      // Legacy subagent files join the session they name (a new one when it has no transcript here); without
      // any, the listing is used as it is (a warm collect goes through thousands of sessions).
      const legacy = listing.legacyAgents.length > 0;
      const bySession = new Map(legacy ? listing.sessions.map((s) => [s.sessionId, s]) : []);
      for (const agent of listing.legacyAgents) {
        const parent = await firstSessionId(agent.file, ctx.warn);
        if (!parent) {
          ctx.warn({ file: agent.file, message: 'subagent file names no session; skipped' });
          continue;
        }
        let files = bySession.get(parent);
        if (!files) {
          files = { sessionId: parent, projectDir: path.dirname(agent.file), subagents: [], legacyAgents: [] };
          bySession.set(parent, files);
        }
        files.legacyAgents.push(agent);
      }
      // One item for the unchanged sessions of a folder: a warm collect hands on thousands of them. A session
      // with subagent files only is asked too: one archived with its main transcript recorded that file, so
      // once the transcript is deleted its files differ and it is read again (as partial).
      const unchanged: string[] = [];
      for (const files of legacy ? bySession.values() : listing.sessions) {
        const verdict = ctx.unchanged?.(sessionFilePaths(files));
        if (verdict?.length === 1 && verdict[0] === files.sessionId) unchanged.push(files.sessionId);
        else toRead.push(files);
      }
      if (unchanged.length > 0) yield { kind: 'unchanged', sessionIds: unchanged };
    }
    if (toRead.length > 0) {
      // Sessions with a transcript of their own, here or in the archive: their records in another session's file
      // are copies a resume made.
      const known = new Set<string>(
        [...ctx.archived].filter((id) => id.startsWith('claude-code/')).map((id) => id.slice(12)),
      );
      for (const listing of listings) for (const s of listing.sessions) if (s.main) known.add(s.sessionId);
      yield* readSessions(toRead, known, ctx);
    }
    const history = path.join(root, 'history.jsonl');
    if (ctx.historyUnchanged?.(history)) continue;
    for await (const prompt of readHistory(history, ctx.warn)) yield { kind: 'prompt', prompt };
  }
}

/** Enough sessions to read that starting worker threads pays off (each costs ~0.1 s to start). */
const POOL_THRESHOLD = 8;

async function filesSize(files: string[]): Promise<number> {
  let total = 0;
  for (const file of files) total += (await fs.stat(file).catch(() => undefined))?.size ?? 0;
  return total;
}

/** Reads sessions into the archive: on every core when there are many (a cold collect), else here. */
async function* readSessions(
  groups: SessionFiles[],
  known: Set<string>,
  ctx: SourceContext,
): AsyncGenerator<SourceItem> {
  if (groups.length === 0) return;
  for (const files of groups) for (const file of sessionFilePaths(files)) await ctx.stamp?.(file);
  // Loaded only when a session is to be read: a collect that finds nothing changed never compiles the reader.
  const { collectSession, readSession } = await import('./session-reader.ts');
  const prepare = ctx.prepare;
  const isKnown = (id: string) => known.has(id);
  if (!prepare) {
    for (const files of groups) {
      const session = await readSession(files, ctx, isKnown);
      if (session) yield { kind: 'session', session };
    }
    return;
  }
  const taskOf = (files: SessionFiles): SessionTask => ({
    files,
    dataDir: prepare.dataDir,
    bodyPath: prepare.bodyPath(files.sessionId),
    resumePath: prepare.resumePath(files.sessionId),
    collectedAt: prepare.collectedAt,
    archived: prepare.isArchived(files.sessionId),
  });
  const threads = defaultThreads();
  if (threads < 2 || groups.length < POOL_THRESHOLD) {
    for (const files of groups) {
      const result = await collectSession(files, ctx.warn, isKnown, taskOf(files));
      if (result.summary) yield { kind: 'prepared', ...result, summary: result.summary };
    }
    return;
  }
  const pool = new WorkerPool<SessionTask, SessionTaskResult>({
    file: workerFile(import.meta.url, 'claude-session-worker', './session-worker.js'),
    threads,
    workerData: { known: [...known] } satisfies SessionWorkerData,
    // Two a worker: a cold collect was ~7% faster on two cores than with one.
    tasksPerWorker: 2,
  });
  // Biggest first, so the long tail does not leave one core working alone at the end. Sessions stream to
  // the archive, so a big one needs no more memory than a small one.
  const sizes = new Map(await Promise.all(groups.map(async (g) => [g, await filesSize(sessionFilePaths(g))] as const)));
  groups = [...groups].sort((a, b) => sizes.get(b)! - sizes.get(a)!);
  try {
    // Bounded: every slot of every thread busy and one more task each waiting; results handed on as they finish.
    const inFlight = new Map<number, Promise<[number, SessionTaskResult]>>();
    const inFlightLimit = threads * (pool.tasksPerWorker + 1);
    let next = 0;
    const start = () => {
      const i = next++;
      inFlight.set(
        i,
        pool.run(taskOf(groups[i]!)).then((result) => [i, result] as [number, SessionTaskResult]),
      );
    };
    while (next < groups.length && inFlight.size < inFlightLimit) start();
    while (inFlight.size > 0) {
      const [i, result] = await Promise.race(inFlight.values());
      inFlight.delete(i);
      while (next < groups.length && inFlight.size < inFlightLimit) start();
      for (const warning of result.warnings) ctx.warn(warning);
      if (result.summary) yield { kind: 'prepared', ...result, summary: result.summary };
    }
  } finally {
    await pool.close();
  }
}

function sessionFilePaths(files: SessionFiles): string[] {
  if (files.legacyAgents.length === 0 && files.subagents.length === 0) return files.main ? [files.main] : [];
  return [
    ...(files.main ? [files.main] : []),
    ...files.legacyAgents.map((a) => a.file),
    ...files.subagents.map((a) => a.file),
  ];
}

async function firstSessionId(file: string, warn: WarningSink): Promise<string | undefined> {
  try {
    for await (const { value } of readJsonl(file, { onWarning: warn })) {
      const id = (value as ClaudeRecord | null)?.sessionId;
      if (typeof id === 'string') return id;
    }
  } catch (error) {
    warn({ file, message: `${readFailure(error)}; skipped` });
  }
  return undefined;
}

/** `~/.claude/history.jsonl`: prompts as typed, epoch milliseconds. */
export async function* readHistory(file: string, warn: WarningSink): AsyncGenerator<HistoryPrompt> {
  try {
    await fs.access(file);
  } catch {
    return;
  }
  try {
    for await (const { value, line } of readJsonl(file, { onWarning: warn })) {
      const entry = value as ClaudeHistoryLine | null;
      if (typeof entry?.display !== 'string' || typeof entry.timestamp !== 'number') {
        warn({ file, line, message: 'history entry without display text or timestamp; skipped' });
        continue;
      }
      const timestamp = saneIsoFromMs(entry.timestamp);
      if (!timestamp) {
        warn({ file, line, message: `timestamp ${entry.timestamp} is ${TIME_RANGE_TEXT}; entry skipped` });
        continue;
      }
      yield {
        source: 'claude-code',
        timestamp,
        text: entry.display,
        ...(typeof entry.project === 'string' && entry.project ? { project: entry.project } : {}),
        ...(typeof entry.sessionId === 'string' && entry.sessionId ? { sessionId: entry.sessionId } : {}),
      };
    }
  } catch (error) {
    warn({ file, message: `${readFailure(error)}; skipped` });
  }
}

/** One session's files read into a session (see session-reader.ts). */
export async function readSession(
  ...args: Parameters<typeof import('./session-reader.ts').readSession>
): Promise<Session | undefined> {
  return (await import('./session-reader.ts')).readSession(...args);
}
