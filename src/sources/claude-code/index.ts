import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { NormalizedMessage } from '../../model/message.ts';
import type { HistoryPrompt, Session, SubagentThread } from '../../model/session.ts';
import { readJsonFile } from '../../util/fs.ts';
import { readJsonl } from '../../util/jsonl.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
import { listProjectDir, listProjectDirs, locateClaude, type SessionFiles, type SubagentFile } from './paths.ts';
import { ThreadNormalizer } from './normalize.ts';
import type { ClaudeHistoryLine, ClaudeRecord, SubagentMeta } from './schema.ts';
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
    const projectDirs = await listProjectDirs(root);
    const listings = await Promise.all(projectDirs.map((dir) => listProjectDir(dir)));
    const known = new Set<string>(
      [...ctx.archived].filter((id) => id.startsWith('claude-code/')).map((id) => id.slice(12)),
    );
    for (const listing of listings) for (const s of listing.sessions) if (s.main) known.add(s.sessionId);
    const toRead: SessionFiles[] = [];

    for (const listing of listings) {
      const bySession = new Map(listing.sessions.map((s) => [s.sessionId, s]));
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
      // Asked for all sessions at once: thousands of stat calls overlap instead of queueing one by one.
      const groups = [...bySession.values()];
      const verdicts = await Promise.all(
        groups.map((files) => (files.main ? ctx.unchanged?.(sessionFilePaths(files)) : undefined)),
      );
      for (const [i, files] of groups.entries()) {
        const unchanged = verdicts[i];
        if (unchanged?.length === 1 && unchanged[0] === files.sessionId) {
          yield { kind: 'unchanged', sessionIds: unchanged };
          continue;
        }
        toRead.push(files);
      }
    }
    yield* readSessions(toRead, known, ctx);
    for await (const prompt of readHistory(path.join(root, 'history.jsonl'), ctx.warn)) {
      yield { kind: 'prompt', prompt };
    }
  }
}

/** Enough sessions to read that starting worker threads pays off (each costs ~0.1 s to start). */
const POOL_THRESHOLD = 8;
const BIG_SESSION_BYTES = 24 * 1024 * 1024;

async function filesSize(files: string[]): Promise<number> {
  let total = 0;
  for (const file of files) total += (await fs.stat(file).catch(() => undefined))?.size ?? 0;
  return total;
}

/** Reads sessions on every core when there are many (a cold collect), else here, one by one. */
async function* readSessions(
  groups: SessionFiles[],
  known: Set<string>,
  ctx: SourceContext,
): AsyncGenerator<SourceItem> {
  for (const files of groups) for (const file of sessionFilePaths(files)) await ctx.stamp?.(file);
  const prepare = ctx.prepare;
  const threads = defaultThreads();
  if (!prepare || threads < 2 || groups.length < POOL_THRESHOLD) {
    for (const files of groups) {
      const session = await readSession(files, ctx, (id) => known.has(id));
      if (session) yield { kind: 'session', session };
    }
    return;
  }
  const pool = new WorkerPool<SessionTask, SessionTaskResult>(
    workerFile(import.meta.url, 'claude-session-worker', './session-worker.js'),
    threads,
    { known: [...known] } satisfies SessionWorkerData,
  );
  // A huge session takes several times its size in memory while it is normalized: those run alone, last, so
  // two of them (or one and a batch of others) never add up.
  const sizes = await Promise.all(groups.map((g) => filesSize(sessionFilePaths(g))));
  const order = groups
    .map((_, i) => i)
    .sort((a, b) => Number(sizes[a]! > BIG_SESSION_BYTES) - Number(sizes[b]! > BIG_SESSION_BYTES));
  groups = order.map((i) => groups[i]!);
  const big = order.map((i) => sizes[i]! > BIG_SESSION_BYTES);
  try {
    // Bounded: a few tasks per thread in flight, results handed on as they finish.
    const inFlight = new Map<number, Promise<[number, SessionTaskResult]>>();
    let next = 0;
    const canStart = () => next < groups.length && (big[next] ? inFlight.size === 0 : inFlight.size < threads * 2);
    const start = () => {
      const i = next++;
      const files = groups[i]!;
      const task: SessionTask = {
        files,
        dataDir: prepare.dataDir,
        bodyPath: prepare.bodyPath(files.sessionId),
        collectedAt: prepare.collectedAt,
        archived: prepare.isArchived(files.sessionId),
      };
      inFlight.set(
        i,
        pool.run(task).then((result) => [i, result] as [number, SessionTaskResult]),
      );
    };
    while (canStart()) start();
    while (inFlight.size > 0) {
      const [i, result] = await Promise.race(inFlight.values());
      inFlight.delete(i);
      while (canStart()) start();
      for (const warning of result.warnings) ctx.warn(warning);
      if (result.summary) {
        yield { kind: 'prepared', summary: result.summary, partial: result.partial, written: result.written };
      }
    }
  } finally {
    await pool.close();
  }
}

/** Reads one session: its main transcript plus every subagent transcript, into one Session. */
function sessionFilePaths(files: SessionFiles): string[] {
  return [
    ...(files.main ? [files.main] : []),
    ...files.legacyAgents.map((a) => a.file),
    ...files.subagents.map((a) => a.file),
  ];
}

export async function readSession(
  files: SessionFiles,
  ctx: Pick<SourceContext, 'warn' | 'stamp'>,
  isKnownSession: (sessionId: string) => boolean = () => false,
): Promise<Session | undefined> {
  const sourceFiles: string[] = [];
  let main: ThreadNormalizer | undefined;
  let mainComplete = false;
  if (files.main) {
    main = new ThreadNormalizer(files.main, '', {
      sessionId: files.sessionId,
      isOwnedElsewhere: isKnownSession,
      splitSidechains: true,
      warn: ctx.warn,
    });
    mainComplete = await feed(main, files.main, ctx.warn);
    sourceFiles.push(files.main);
  }

  const subagents: SubagentThread[] = [];
  let subagentCwd: string | undefined;
  for (const agent of [...files.legacyAgents, ...files.subagents]) {
    const thread = new ThreadNormalizer(agent.file, `${agent.agentId}:`, { warn: ctx.warn });
    if (!(await feed(thread, agent.file, ctx.warn))) continue;
    sourceFiles.push(agent.file);
    subagentCwd ??= thread.cwd;
    const meta = agent.metaFile ? await readJsonFile<SubagentMeta>(agent.metaFile) : undefined;
    subagents.push(subagentThread(agent, thread, meta));
  }
  if (main) {
    let n = 0;
    for (const thread of main.sidechains.values()) {
      n += 1;
      subagents.push({
        agentId: `sidechain-${n}`,
        agentType: 'sidechain',
        file: files.main!,
        messages: thread.messages,
      });
    }
    linkSubagents(main.messages, subagents);
  }

  const mainMessages = main?.messages ?? [];
  const all = [...mainMessages, ...subagents.flatMap((s) => s.messages)];
  const conversational = all.filter((m) => m.role !== 'meta' || m.source_type !== 'meta');
  if (!mainComplete && conversational.length === 0) return undefined;
  if (!all.some((m) => m.role === 'user' || m.role === 'assistant' || m.role === 'tool')) return undefined;

  const times = all
    .map((m) => m.timestamp)
    .filter(Boolean)
    .sort();
  const firstPrompt = mainMessages.find((m) => m.metadata?.kind === 'prompt');
  const title = main?.title ?? oneLine(firstPrompt?.segments.find((s) => s.type === 'text')?.text ?? '');
  const cwd = main?.cwd ?? subagentCwd ?? '';
  return {
    source: 'claude-code',
    sessionId: files.sessionId,
    title: title || `Session ${files.sessionId.slice(0, 8)}`,
    cwd,
    gitBranch: main?.gitBranch,
    startedAt: times[0] ?? '',
    endedAt: times[times.length - 1] ?? '',
    models: [...new Set(all.map((m) => m.metadata?.model).filter(isRealModel))].sort(),
    cliVersion: main?.cliVersion,
    files: sourceFiles,
    messages: mainMessages,
    subagents,
    warnings: [],
    ...(main && main.resumedFrom.size > 0 ? { resumedFrom: [...main.resumedFrom] } : {}),
    ...(files.main ? {} : { partial: true }),
  };
}

/** Streams one file into a normalizer. Returns false when the file could not be read at all. */
async function feed(thread: ThreadNormalizer, file: string, warn: WarningSink): Promise<boolean> {
  let mtime: string;
  try {
    mtime = (await fs.stat(file)).mtime.toISOString();
    for await (const record of readJsonl(file, { onWarning: warn })) thread.add(record);
  } catch (error) {
    warn({
      file,
      message: `could not read file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    });
    return false;
  }
  thread.finish(mtime);
  return true;
}

function subagentThread(agent: SubagentFile, thread: ThreadNormalizer, meta: SubagentMeta | undefined): SubagentThread {
  const compaction = agent.agentId.startsWith('acompact-');
  return {
    agentId: agent.agentId,
    agentType: meta?.agentType ?? (compaction ? 'compaction' : undefined),
    description: meta?.description,
    parentCallId: meta?.toolUseId,
    file: agent.file,
    messages: thread.messages,
  };
}

/** Finds the Task/Agent call that spawned each subagent: `.meta.json`'s toolUseId, else the call whose
 * result names the agent id, else (inline 1.x sidechains) the call whose prompt is the thread's first prompt. */
function linkSubagents(mainMessages: NormalizedMessage[], subagents: SubagentThread[]): void {
  const callByAgentId = new Map<string, string>();
  const callsByPrompt = new Map<string, string>();
  for (const m of mainMessages) {
    const agentId = m.metadata?.agent_id;
    if (m.source_type === 'tool_result' && typeof agentId === 'string' && m.tool_call) {
      callByAgentId.set(agentId, m.tool_call.call_id);
    }
    const args = m.tool_call?.arguments_json as { prompt?: unknown } | undefined;
    if (m.source_type === 'tool_call' && typeof args?.prompt === 'string') {
      callsByPrompt.set(args.prompt.trim(), m.tool_call!.call_id);
    }
  }
  for (const agent of subagents) {
    if (agent.parentCallId) continue;
    agent.parentCallId = callByAgentId.get(agent.agentId);
    if (!agent.parentCallId) {
      const firstText = agent.messages
        .find((m) => m.role === 'user' || m.role === 'meta')
        ?.segments.find((s) => s.type === 'text')?.text;
      if (firstText) agent.parentCallId = callsByPrompt.get(firstText.trim());
    }
  }
}

async function firstSessionId(file: string, warn: WarningSink): Promise<string | undefined> {
  try {
    for await (const { value } of readJsonl(file, { onWarning: warn })) {
      const id = (value as ClaudeRecord | null)?.sessionId;
      if (typeof id === 'string') return id;
    }
  } catch (error) {
    warn({ file, message: `could not read file (${(error as Error).message})` });
  }
  return undefined;
}

function isRealModel(model: unknown): model is string {
  return typeof model === 'string' && model !== '<synthetic>';
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
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
      const entry = value as ClaudeHistoryLine;
      if (typeof entry?.display !== 'string' || typeof entry.timestamp !== 'number') {
        warn({ file, line, message: 'history entry without display text or timestamp; skipped' });
        continue;
      }
      yield {
        source: 'claude-code',
        timestamp: new Date(entry.timestamp).toISOString(),
        text: entry.display,
        ...(entry.project ? { project: entry.project } : {}),
        ...(entry.sessionId ? { sessionId: entry.sessionId } : {}),
      };
    }
  } catch (error) {
    warn({ file, message: `could not read file (${(error as Error).message})` });
  }
}
