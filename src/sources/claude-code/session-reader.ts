import { createHash, type Hash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { DataDir } from '../../archive/data-dir.ts';
import { summaryOf } from '../../model/summarize.ts';
import { plainText } from '../../model/title.ts';
import { type BodyOut, MAIN_THREAD, type MessagePatch, ThreadAssembler } from '../../model/body.ts';
import type { NormalizedMessage } from '../../model/message.ts';
import type { Session, SessionSummary, SubagentThread } from '../../model/session.ts';
import { type AccumulatorState, SessionAccumulator } from '../../model/session-accumulator.ts';
import { openRegular, readFailure, readJsonFile } from '../../util/fs.ts';
import { readStateFile, writeStateFile } from '../../util/state-file.ts';
import { type JsonlEnd, readJsonl } from '../../util/jsonl.ts';
import { isWriteFailure } from '../../util/line-writer.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { SessionFiles, SubagentFile } from './paths.ts';
import { ThreadNormalizer, type ThreadOptions, type ThreadState } from './normalize.ts';
import type { SubagentMeta } from './schema.ts';

/** How far a file was read, and a hash of those bytes, to tell next time whether it only grew. */
interface FileMark {
  offset: number;
  lines: number;
  sha1: string;
}

/** What the session-level pass remembers of each thread. */
interface ThreadFacts {
  /** It has a message that is not bookkeeping. */
  conversational: boolean;
  /** It has a user, assistant or tool message. */
  talk: boolean;
  /** The text of its first user or meta message (null once that message is seen without text). */
  firstText?: string | null;
}

interface SessionFacts {
  threads: Record<string, ThreadFacts>;
  firstPrompt?: string;
  /** Main-thread Task/Agent results by the agent they ran, and calls by their prompt: to link subagents. */
  callByAgentId: Record<string, string>;
  callByPrompt: Record<string, string>;
}

/** Everything needed to carry on reading a session whose files grew: saved after each full or resumed read. */
export interface ResumeState {
  version: 1;
  sessionId: string;
  files: Record<string, FileMark>;
  threads: Record<string, ThreadState>;
  facts: SessionFacts;
  accumulator: AccumulatorState;
  /** Size of the body's message file when this was saved. */
  bodyBytes: number;
}

export interface StreamedSession {
  /** The session without its messages (they went to the output). */
  header: Session;
  totals: ReturnType<SessionAccumulator['result']>;
  /** Undefined when the files cannot be resumed (a line still being written, times taken from the mtime). */
  resume?: Omit<ResumeState, 'bodyBytes'>;
}

/** Sees every message and patch on its way out, for what the session header needs. */
class SessionObserver implements BodyOut {
  constructor(
    readonly facts: SessionFacts,
    private readonly next: BodyOut,
    private readonly accumulator: SessionAccumulator,
  ) {}

  message(thread: string, m: NormalizedMessage): void {
    const t = (this.facts.threads[thread] ??= { conversational: false, talk: false });
    if (m.role !== 'meta' || m.source_type !== 'meta') t.conversational = true;
    if (m.role === 'user' || m.role === 'assistant' || m.role === 'tool') t.talk = true;
    if (t.firstText === undefined && (m.role === 'user' || m.role === 'meta')) {
      t.firstText = m.segments.find((s) => s.type === 'text')?.text ?? null;
    }
    if (thread === MAIN_THREAD) {
      if (this.facts.firstPrompt === undefined && m.metadata?.kind === 'prompt') {
        this.facts.firstPrompt = m.segments.find((s) => s.type === 'text')?.text ?? '';
      }
      const agentId = m.metadata?.agent_id;
      if (m.source_type === 'tool_result' && typeof agentId === 'string' && m.tool_call) {
        this.facts.callByAgentId[agentId] = m.tool_call.call_id;
      }
      const args = m.tool_call?.arguments_json as { prompt?: unknown } | undefined;
      if (m.source_type === 'tool_call' && typeof args?.prompt === 'string') {
        this.facts.callByPrompt[args.prompt.trim()] = m.tool_call!.call_id;
      }
    }
    this.accumulator.message(thread, m);
    this.next.message(thread, m);
  }

  patch(thread: string, patch: MessagePatch): void {
    this.accumulator.patch(thread, patch);
    this.next.patch(thread, patch);
  }
}

function sessionFiles(files: SessionFiles): string[] {
  return [
    ...(files.main ? [files.main] : []),
    ...files.legacyAgents.map((a) => a.file),
    ...files.subagents.map((a) => a.file),
  ];
}

/** sha1 of a file's first `bytes` bytes, left open so reading can go on from there. */
async function hashPrefix(file: string, bytes: number): Promise<Hash> {
  const hash = createHash('sha1');
  if (bytes === 0) return hash;
  const handle = await openRegular(file);
  for await (const chunk of handle.createReadStream({ start: 0, end: bytes - 1, highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
  }
  return hash;
}

/** Which files can be read on from where the last run stopped: every file it read must still start with the
 * same bytes. Undefined: read the whole session again. */
async function resumable(state: ResumeState | undefined, files: string[]): Promise<Map<string, Hash> | undefined> {
  if (!state || state.version !== 1) return undefined;
  if (Object.keys(state.files).some((f) => !files.includes(f))) return undefined;
  const hashes = new Map<string, Hash>();
  for (const [file, mark] of Object.entries(state.files)) {
    const size = (await fs.stat(file).catch(() => undefined))?.size;
    if (size === undefined || size < mark.offset) return undefined;
    const hash = await hashPrefix(file, mark.offset).catch(() => undefined);
    if (!hash || hash.copy().digest('hex') !== mark.sha1) return undefined;
    hashes.set(file, hash);
  }
  return hashes;
}

/**
 * Streams one session (its main transcript and every subagent transcript) through the normalizers to `out`,
 * holding only what links later lines to earlier ones. Given the state a previous read left, only the bytes
 * its files grew by are read.
 */
export async function streamSession(
  files: SessionFiles,
  warn: WarningSink,
  isKnownSession: (sessionId: string) => boolean,
  out: BodyOut,
  from?: { state: ResumeState; hashes: Map<string, Hash> },
): Promise<StreamedSession | undefined> {
  const accumulator = new SessionAccumulator(from?.state.accumulator);
  const facts: SessionFacts = from ? from.state.facts : { threads: {}, callByAgentId: {}, callByPrompt: {} };
  const observer = new SessionObserver(facts, out, accumulator);
  const marks: Record<string, FileMark> = {};
  let canResume = true;

  const read = async (
    file: string,
    make: (options: ThreadOptions) => ThreadNormalizer,
    options: ThreadOptions,
  ): Promise<{ thread: ThreadNormalizer; complete: boolean }> => {
    const saved = from?.state.threads[file];
    const mark = from?.state.files[file];
    const thread = saved ? ThreadNormalizer.restore(file, saved, observer, options) : make(options);
    const hash = (mark && from?.hashes.get(file)) || createHash('sha1');
    let end: JsonlEnd | undefined;
    let mtime: string;
    try {
      mtime = (await fs.stat(file)).mtime.toISOString();
      const reading = readJsonl(file, {
        onWarning: warn,
        hash,
        start: mark?.offset ?? 0,
        firstLine: (mark?.lines ?? 0) + 1,
        onEnd: (e) => (end = e),
      });
      for await (const record of reading) {
        // A record the normalizer cannot handle costs that record only.
        try {
          thread.add(record);
        } catch (error) {
          if (isWriteFailure(error)) throw error;
          warn({ file, line: record.line, message: `record not understood (${errorText(error)}); skipped` });
        }
      }
    } catch (error) {
      if (isWriteFailure(error)) throw error; // the archive's disk, not this file: stop the run
      warn({ file, message: `${readFailure(error)}; skipped` });
      if (from) throw new ResumeFailed();
      canResume = false; // what was written of it stays in the body: read it all again next time
      return { thread, complete: false };
    }
    thread.finish(mtime);
    if (!end?.terminated || thread.datedByMtime) canResume = false;
    else marks[file] = { offset: end.offset, lines: end.lines, sha1: hash.digest('hex') };
    return { thread, complete: true };
  };

  let main: ThreadNormalizer | undefined;
  let mainComplete = false;
  if (files.main) {
    const result = await read(files.main, (o) => new ThreadNormalizer(files.main!, MAIN_THREAD, '', observer, o), {
      sessionId: files.sessionId,
      isOwnedElsewhere: isKnownSession,
      splitSidechains: true,
      warn,
    });
    main = result.thread;
    mainComplete = result.complete;
  }
  const subagents: SubagentThread[] = [];
  const threads: Record<string, ThreadState> = {};
  let subagentCwd: string | undefined;
  for (const agent of [...files.legacyAgents, ...files.subagents]) {
    const { thread, complete } = await read(
      agent.file,
      (o) => new ThreadNormalizer(agent.file, agent.agentId, `${agent.agentId}:`, observer, o),
      { warn },
    );
    if (!complete) continue;
    threads[agent.file] = thread.snapshot();
    subagentCwd ??= thread.cwd;
    const meta = agent.metaFile ? await readJsonFile<SubagentMeta>(agent.metaFile) : undefined;
    subagents.push(subagentHeader(agent, meta));
  }
  if (main) {
    threads[files.main!] = main.snapshot();
    for (const sidechain of main.sidechains.values()) {
      subagents.push({ agentId: sidechain.thread, agentType: 'sidechain', file: files.main!, messages: [] });
    }
    for (const agent of subagents) {
      if (agent.parentCallId) continue;
      agent.parentCallId = facts.callByAgentId[agent.agentId];
      const firstText = facts.threads[agent.agentId]?.firstText;
      if (!agent.parentCallId && firstText) agent.parentCallId = facts.callByPrompt[firstText.trim()];
    }
  }

  const included = [MAIN_THREAD, ...subagents.map((s) => s.agentId)].map((t) => facts.threads[t]);
  if (!mainComplete && !included.some((t) => t?.conversational)) return undefined;
  if (!included.some((t) => t?.talk)) return undefined;

  const totals = accumulator.result(subagents.map((s) => s.agentId));
  const title = main?.title ?? oneLine(plainText(facts.firstPrompt ?? ''));
  const header: Session = {
    source: 'claude-code',
    sessionId: files.sessionId,
    title: title || `Session ${files.sessionId.slice(0, 8)}`,
    cwd: main?.cwd ?? subagentCwd ?? '',
    gitBranch: main?.gitBranch,
    startedAt: totals.startedAt,
    endedAt: totals.endedAt,
    models: totals.models,
    cliVersion: main?.cliVersion,
    files: sessionFiles(files).filter((f) => f === files.main || threads[f]),
    messages: [],
    subagents,
    warnings: [],
    ...(main && main.resumedFrom.size > 0 ? { resumedFrom: [...main.resumedFrom] } : {}),
    ...(files.main ? {} : { partial: true }),
  };
  if (!main) canResume = false;
  const resume = canResume
    ? {
        version: 1 as const,
        sessionId: files.sessionId,
        files: marks,
        threads,
        facts,
        accumulator: accumulator.toJSON(),
      }
    : undefined;
  return { header, totals, resume };
}

class ResumeFailed extends Error {}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function subagentHeader(agent: SubagentFile, meta: SubagentMeta | undefined): SubagentThread {
  const compaction = agent.agentId.startsWith('acompact-');
  return {
    agentId: agent.agentId,
    agentType: meta?.agentType ?? (compaction ? 'compaction' : undefined),
    description: meta?.description,
    parentCallId: meta?.toolUseId,
    file: agent.file,
    messages: [],
  };
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}

/** Reads one session into memory (tests, and tools that want a `Session`). */
export async function readSession(
  files: SessionFiles,
  ctx: { warn: WarningSink },
  isKnownSession: (sessionId: string) => boolean = () => false,
): Promise<Session | undefined> {
  const threads = new ThreadAssembler();
  const streamed = await streamSession(files, ctx.warn, isKnownSession, threads);
  return streamed && threads.session(streamed.header);
}

export interface CollectTarget {
  dataDir: string;
  bodyPath: string;
  resumePath: string;
  collectedAt: string;
  /** The archive holds this session (a partial read must then not replace it). */
  archived: boolean;
}

export interface CollectedSession {
  summary?: SessionSummary;
  partial: boolean;
  written: boolean;
  /** Read on from where the last run stopped, rather than from the start. */
  resumed: boolean;
}

/**
 * Reads one session into the archive: its files grew since the last run, only the new lines are read
 * and appended; else the whole session is read and its body replaced. The resume state is removed
 * before anything is written and saved again after, so an interrupted run falls back to a full read.
 */
export async function collectSession(
  files: SessionFiles,
  warn: WarningSink,
  isKnownSession: (sessionId: string) => boolean,
  target: CollectTarget,
): Promise<CollectedSession> {
  const data = new DataDir(target.dataDir);
  const paths = sessionFiles(files);
  const saved = await readStateFile<ResumeState>(target.resumePath);
  await fs.rm(target.resumePath, { force: true });
  const bodySize = saved && (await fs.stat(data.messagesPath(target.bodyPath)).catch(() => undefined))?.size;
  const hashes =
    target.archived && saved?.sessionId === files.sessionId && bodySize !== undefined && bodySize >= saved.bodyBytes
      ? await resumable(saved, paths)
      : undefined;
  if (saved && hashes) {
    const resumeWarnings: Parameters<WarningSink>[0][] = [];
    const writer = data.bodyWriter(target.bodyPath, { bytes: saved.bodyBytes }, (w) => resumeWarnings.push(w));
    try {
      const streamed = await streamSession(files, (w) => resumeWarnings.push(w), isKnownSession, writer, {
        state: saved,
        hashes,
      });
      if (streamed) {
        for (const w of resumeWarnings) warn(w);
        return { ...(await commit(writer, streamed, target)), resumed: true };
      }
    } catch (error) {
      if (!(error instanceof ResumeFailed)) {
        writer.discard(); // back to the lines the archive's header counts
        throw error;
      }
    }
    writer.discard();
  }
  const writer = data.bodyWriter(target.bodyPath, undefined, warn);
  let streamed: StreamedSession | undefined;
  try {
    streamed = await streamSession(files, warn, isKnownSession, writer);
  } catch (error) {
    writer.discard(); // no temp file left behind
    throw error;
  }
  if (!streamed) {
    writer.discard();
    return { partial: false, written: false, resumed: false };
  }
  const partial = streamed.header.partial === true;
  if (partial && target.archived) {
    writer.discard(); // the archive has the whole session; keep it
    return {
      summary: summaryOf(streamed.header, streamed.totals, target.bodyPath, target.collectedAt),
      partial,
      written: false,
      resumed: false,
    };
  }
  try {
    return { ...(await commit(writer, streamed, target)), resumed: false };
  } catch (error) {
    writer.discard();
    throw error;
  }
}

async function commit(
  writer: ReturnType<DataDir['bodyWriter']>,
  streamed: StreamedSession,
  target: CollectTarget,
): Promise<Omit<CollectedSession, 'resumed'>> {
  const summary = summaryOf(streamed.header, streamed.totals, target.bodyPath, target.collectedAt);
  const bodyBytes = await writer.commit(summary, streamed.header);
  if (streamed.resume) {
    try {
      writeStateFile(target.resumePath, { ...streamed.resume, bodyBytes });
    } catch {
      // Derived data: without it the next run reads the session whole. The body is written; keep it.
    }
  }
  return { summary, partial: streamed.header.partial === true, written: true };
}
