import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { NormalizedMessage } from '../../model/message.ts';
import type { Session, SubagentThread } from '../../model/session.ts';
import { readJsonl } from '../../util/jsonl.ts';
import { openRegular } from '../../util/fs.ts';
import type { WarningSink } from '../../util/warnings.ts';
import { LAST_MESSAGE_AFTER_MS, ThreadBuilder } from './builder.ts';
import { addBubble, orderedBubbles, type Composer } from './bubbles.ts';
import type { CursorDb } from './db-reader.ts';
import { cwdFromSlug } from './slug.ts';
import { chatThread } from './store-messages.ts';
import type { CliChat } from './store-reader.ts';
import { isObject, isoOf, str } from './text.ts';
import { addTranscriptLine } from './transcript-jsonl.ts';
import { addTextTranscript } from './transcript-txt.ts';
import type { TranscriptGroup } from './transcripts.ts';
import { cwdFromHash, workspaceFolder } from './workspace.ts';

/** A legacy `.txt` transcript is read whole: past this size it is skipped with a warning. */
const MAX_TXT_BYTES = 64 * 1024 * 1024;

interface FileTimes {
  start: string;
  end: string;
}

async function fileTimes(file: string): Promise<FileTimes> {
  const stat = await fs.stat(file);
  const end = stat.mtime.toISOString();
  const born = stat.birthtimeMs > 0 && stat.birthtimeMs <= stat.mtimeMs ? stat.birthtime.toISOString() : end;
  return { start: born, end };
}

/** Reads one transcript file into a thread (JSONL streamed line by line; `.txt` whole, up to a cap). */
export async function readTranscript(file: string, warn: WarningSink, idPrefix = ''): Promise<ThreadBuilder> {
  const thread = new ThreadBuilder(idPrefix);
  if (file.endsWith('.txt')) {
    const handle = await openRegular(file);
    try {
      const { size } = await handle.stat();
      if (size > MAX_TXT_BYTES) warn({ file, message: 'a .txt transcript over 64 MiB is not read; skipped' });
      else addTextTranscript(thread, file, await handle.readFile('utf8'));
    } finally {
      await handle.close();
    }
    return thread;
  }
  for await (const { line, value } of readJsonl(file, { onWarning: warn })) {
    addTranscriptLine(thread, file, line, value, warn);
  }
  return thread;
}

export interface ComposerSource {
  db: CursorDb;
  composer: Composer;
}

function composerThread(source: ComposerSource, warn: WarningSink, models: Set<string>): ThreadBuilder {
  const thread = new ThreadBuilder();
  const bubbles = orderedBubbles(source.composer, source.db.bubbles(source.composer.composerId ?? ''));
  bubbles.forEach((b, i) => addBubble(thread, source.db.file, i + 1, b, source.composer, warn, models));
  return thread;
}

const prompts = (messages: NormalizedMessage[]) => messages.filter((m) => m.metadata?.kind === 'prompt');

/** A CLI chat's end when it has no `meta.json`: its store's mtime, unless that is more than half a day after the
 * chat was created (a store touched later, copied or restored: see ThreadBuilder.finish), then its creation. */
function storeEnd(chat: CliChat): string {
  const mtime = new Date(chat.mtimeMs).toISOString();
  if (!chat.createdAt) return mtime;
  const after = chat.mtimeMs - Date.parse(chat.createdAt);
  return after >= 0 && after <= LAST_MESSAGE_AFTER_MS ? mtime : chat.createdAt;
}

/**
 * One conversation as a session: from its transcript files, its `composerData` in the editor's database, its CLI
 * chat store (`store.db`), or several of them (the composer id and the CLI's agent id are the transcript's
 * uuid). The richest copy gives the messages: the first of bubbles (times, results, thinking, tokens), store
 * (results, thinking) and transcript that holds at least as many prompts as each other; when that is not the
 * bubbles, its undated prompts are dated from them in order. Title, times and model come from the composer when
 * there is one, else from the store's metadata.
 */
export async function buildSession(
  id: string,
  group: TranscriptGroup | undefined,
  composer: ComposerSource | undefined,
  warn: WarningSink,
  chat?: CliChat,
): Promise<Session | undefined> {
  const models = new Set<string>();
  const files: string[] = [];
  const c = composer?.composer;
  const db = composer ? composerThread(composer, warn, models) : undefined;
  const cli = chat ? chatThread(chat, warn, models) : undefined;
  const main = group?.main ? await readTranscript(group.main, warn) : undefined;
  const times = group?.main ? await fileTimes(group.main) : undefined;
  const composerCreated = isoOf(c?.createdAt);
  const created = composerCreated ?? chat?.createdAt;
  const updated =
    (isoOf(c?.lastUpdatedAt) ?? composerCreated) || (chat ? (chat.updatedAt ?? storeEnd(chat)) : undefined);
  const fallbackStart = created ?? times?.start ?? new Date(composer?.db.mtimeMs ?? chat?.mtimeMs ?? 0).toISOString();
  const fallbackEnd = updated ?? times?.end ?? fallbackStart;

  const copies = [db, cli, main].filter((t): t is ThreadBuilder => t !== undefined && t.messages.length > 0);
  const most = Math.max(0, ...copies.map((t) => prompts(t.messages).length));
  let thread: ThreadBuilder | undefined = copies.find((t) => prompts(t.messages).length >= most);
  // Undated prompts take the times of the other copies' dated prompts, in order (the bubbles' first).
  for (const other of [db, main]) {
    if (!thread || !other || other === thread) continue;
    const dated = prompts(other.messages).filter((m) => m.timestamp);
    prompts(thread.messages).forEach((m, i) => {
      if (!m.timestamp && dated[i]) m.timestamp = dated[i]!.timestamp;
    });
  }
  if (group?.main) files.push(group.main);
  if (composer) files.push(composer.db.file);
  if (chat) files.push(...chat.ref.files);
  if (!thread) thread = new ThreadBuilder();
  const messages = thread.finish(fallbackStart, fallbackEnd);

  // An undated subagent transcript is dated by its file, unless that is long after the conversation's last
  // message (a copied or restored file: see ThreadBuilder.finish).
  const mainEnd = messages.reduce((t, m) => (m.timestamp > t ? m.timestamp : t), '');
  const plausible = (iso: string) =>
    mainEnd && Date.parse(iso) - Date.parse(mainEnd) > LAST_MESSAGE_AFTER_MS ? mainEnd : iso;
  const subagents: SubagentThread[] = [];
  for (const file of group?.subagents ?? []) {
    const agentId = path.basename(file, '.jsonl');
    const sub = await readTranscript(file, warn, `${agentId}:`);
    const t = await fileTimes(file);
    subagents.push({ agentId, file, messages: sub.finish(plausible(t.start), plausible(t.end)) });
    files.push(file);
  }
  if (messages.length === 0 && subagents.every((s) => s.messages.length === 0)) return undefined;

  const all = [...messages, ...subagents.flatMap((s) => s.messages)].map((m) => m.timestamp).sort();
  const firstPrompt = prompts(messages)[0]?.segments[0]?.text ?? '';
  const line =
    firstPrompt
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? '';
  const title = str(c?.name) ?? chat?.name ?? (line ? (line.length > 80 ? `${line.slice(0, 79)}…` : line) : id);
  const seen = seenPaths([...messages, ...subagents.flatMap((s) => s.messages)]);
  // A CLI chat's folder is named after the MD5 of its workspace path: a path that hashes to it is the cwd.
  let cwd = chat?.cwd ?? (chat && cwdFromHash(chat.ref.workspaceHash, [...seen, ...contextPaths(messages)])) ?? '';
  if (!cwd && group) cwd = cwdFromSlug(group.slug, seen);
  if (!cwd && composer) cwd = (await workspaceFolder(composer.db.file, c!)) ?? '';
  return {
    source: 'cursor',
    sessionId: id,
    title,
    cwd,
    startedAt: all[0] ?? fallbackStart,
    endedAt: all.at(-1) ?? fallbackEnd,
    models: [...models].sort(),
    files,
    messages,
    subagents,
    warnings: [],
  };
}

/** Absolute paths written in injected context (the CLI's `<user_info>` names the workspace). */
function contextPaths(messages: NormalizedMessage[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (m.metadata?.kind !== 'injected') continue;
    for (const s of m.segments) out.push(...((s.text ?? '').match(/(?:[A-Za-z]:)?[\\/][^\s"'`<>()]+/g) ?? []));
  }
  return out;
}

/** Absolute paths named in tool arguments, which show where the workspace is. */
function seenPaths(messages: NormalizedMessage[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    const args = m.tool_call?.arguments_json;
    if (!isObject(args)) continue;
    for (const v of Object.values(args)) {
      if (typeof v === 'string' && (v.startsWith('/') || /^[A-Za-z]:[\\/]/.test(v) || v.startsWith('file://')))
        out.push(v);
    }
  }
  return out;
}
