import type { SourceId } from '../model/message.ts';
import { hadMainTranscript, type HistoryPrompt, type SessionSummary } from '../model/session.ts';
import { SOURCES } from '../sources/index.ts';
import type { Source, SourceContext } from '../sources/source.ts';
import type { CollectWarning } from '../util/warnings.ts';
import { DataDir, indexEntry, type IndexEntry } from '../archive/data-dir.ts';
import { lockDataDir } from '../archive/lock.ts';
import { recoverArchive } from '../archive/recover.ts';
import { fileStamp } from '../util/stamp.ts';
import { HistoryFiles } from './history-files.ts';

export interface CollectOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  dataDir: string;
  /** Source location flags (`claudeDir`, …) and `explicitHome`. */
  sourceOptions: Record<string, string | string[] | undefined>;
  sources?: readonly Source[];
  onWarning?: (w: CollectWarning) => void;
  now?: () => Date;
  /** Told once when another collect holds the data directory and this one waits for it. */
  onWait?: (message: string) => void;
  /** How long to wait for another collect (default lock.ts DEFAULT_LOCK_WAIT_MS). */
  lockWaitMs?: number;
  /** Told as a source reads: the files it reads in this run (new or changed ones) and how many are done. */
  onProgress?: (progress: CollectProgress) => void;
}

export interface CollectProgress {
  source: SourceId;
  label: string;
  /** Files read (whole or from where the last run stopped), of those to read. */
  done: number;
  total: number;
  /** Their sizes. */
  bytes: { done: number; total: number };
}

export interface SourceReport {
  id: SourceId;
  label: string;
  looked: string[];
  found: string[];
  /** Sessions read (new or changed) in this run. */
  sessions: number;
  /** Of the sessions read, those the archive did not hold before. */
  added: number;
  /** Sessions whose files had not changed: kept from the archive without reading. */
  unchanged: number;
  /** Of the sessions read, those whose files only grew: read from where the last run stopped. */
  resumed: number;
  prompts: number;
  warnings: number;
}

export interface CollectReport {
  sources: SourceReport[];
  /** Sessions in the data directory after this run, including archived ones. */
  totalSessions: number;
  /** Sessions kept from the archive whose source files are gone. */
  archivedOnly: number;
  warnings: CollectWarning[];
  /** What the archive holds after this run, for checks that follow a collect (retention) without reading it
   * again: its session keys, and the merged prompt history of each source whose histories were read (one whose
   * histories were all unchanged is not in it: its history is the archive's). */
  archive: { sessionIds: ReadonlySet<string>; prompts: Partial<Record<SourceId, readonly HistoryPrompt[]>> };
}

export async function collect(options: CollectOptions): Promise<CollectReport> {
  // One collect writes to an archive at a time; a second waits (see lock.ts).
  const waitSeconds = Number(options.env.AGENT_LOGBOOK_LOCK_WAIT);
  const lock = await lockDataDir(options.dataDir, {
    onWait: options.onWait ?? ((message) => process.stderr.write(`${message}\n`)),
    waitMs: options.lockWaitMs ?? (waitSeconds >= 0 ? waitSeconds * 1000 : undefined),
  });
  try {
    const data = new DataDir(options.dataDir);
    await data.open();
    const early: CollectWarning[] = [];
    await recoverArchive(options.dataDir, lock.tookOverStale, (w) => {
      early.push(w);
      options.onWarning?.(w);
    });
    const report = await collectLocked(data, options);
    report.warnings.unshift(...early);
    return report;
  } finally {
    await lock.release();
  }
}

async function collectLocked(data: DataDir, options: CollectOptions): Promise<CollectReport> {
  const now = (options.now ?? (() => new Date()))().toISOString();
  /** What the archive holds, in brief: enough to tell what changed (the full summaries are read only to
   * write them again, when something did). */
  const previous = new Map((await data.readIndexEntries()).map((e) => [e.id, e]));
  /** What the archive holds after this run: a copy of `previous` made when the first session is written. */
  let currentCopy: Map<string, IndexEntry> | undefined;
  const current = () => (currentCopy ??= new Map(previous));
  /** Summaries of the sessions written in this run. */
  const written = new Map<string, SessionSummary>();
  const warnings: CollectWarning[] = [];
  const reports: SourceReport[] = [];
  /** Sessions a source produced in this run; every other archived session is gone from its source. */
  const seen = new Set<string>();
  const promptsBySource: Partial<Record<SourceId, HistoryPrompt[]>> = {};
  const histories = await HistoryFiles.open(options.dataDir);
  const unavailable = new Set<string>();
  const stamps = new Map<string, string>();
  const stampsOf = (files: string[]) =>
    Object.fromEntries(files.flatMap((f) => (stamps.has(f) ? [[f, stamps.get(f)!] as const] : [])));
  /** Bodies written under an older file name (before ids were mapped by idToPathSegment), to remove once
   * nothing refers to them. */
  const movedBodies = new Set<string>();
  const record = (summary: SessionSummary) => {
    summary.fileStamps = stampsOf(summary.files);
    const before = current().get(summary.id)?.body;
    if (before && before !== summary.body) movedBodies.add(before);
    written.set(summary.id, summary);
    current().set(summary.id, indexEntry(summary));
  };
  /** An archived session that a session read in this run now holds as a thread (Session.absorbed): its own copy
   * leaves the index and its body goes, so its messages and tokens count once, where they are now shown. */
  const fold = (folded: string, into: string) => {
    const entry = current().get(folded);
    if (!entry || folded === into || written.has(folded) || seen.has(folded)) return;
    current().delete(folded);
    movedBodies.add(entry.body);
  };
  /** file → the archived session read from it, or the sessions when several were (no list for the usual one) */
  const sessionsByFile = new Map<string, string | string[]>();
  for (const entry of previous.values()) {
    for (let i = 0; i < entry.fileCount; i++) {
      const file = entry.file(i);
      const owners = sessionsByFile.get(file);
      if (owners === undefined) sessionsByFile.set(file, entry.id);
      else if (typeof owners === 'string') sessionsByFile.set(file, [owners, entry.id]);
      else owners.push(entry.id);
    }
  }
  const ownersOf = (file: string): readonly string[] | undefined => {
    const owners = sessionsByFile.get(file);
    return typeof owners === 'string' ? [owners] : owners;
  };
  /** SourceContext.archived, made when a source first asks (one reading a session does). */
  let archivedKeys: ReadonlySet<string> | undefined;
  /** SourceContext.unchanged for the usual session of one file, without the sets the general case needs; the
   * file is stat'ed once however many sessions were read from it. */
  const unchangedFile = (file: string, prefix: string): string[] | undefined => {
    const owners = sessionsByFile.get(file);
    if (owners === undefined) return undefined;
    if (typeof owners === 'string') return unchangedOwner(owners, file, prefix);
    let ids: string[] | undefined;
    let stamp: string | undefined | null = null;
    for (const id of owners) {
      if (!id.startsWith(prefix)) continue;
      const entry = previous.get(id)!;
      for (let i = 0; i < entry.fileCount; i++) {
        const recorded = entry.stamp(i);
        if (entry.file(i) !== file || !recorded) return undefined;
        if (stamp === null) stamp = sourceStamp(file);
        if (recorded !== stamp) return undefined;
      }
      (ids ??= []).push(id.slice(prefix.length));
    }
    return ids;
  };
  /** unchangedFile for a file one archived session was read from (the usual case). */
  const unchangedOwner = (id: string, file: string, prefix: string): string[] | undefined => {
    if (!id.startsWith(prefix)) return undefined;
    const entry = previous.get(id)!;
    if (entry.fileCount !== 1 || entry.file(0) !== file) return undefined;
    const recorded = entry.stamp(0);
    if (!recorded || recorded !== sourceStamp(file)) return undefined;
    return [id.slice(prefix.length)];
  };

  /** Stamps of the files of sessions of several files, taken once a run: such files are often shared (Cursor's
   * database is one of each of its sessions' files). A stamp taken earlier in the run only moves the check earlier. */
  const sharedStamps = new Map<string, string | undefined>();
  const sharedStamp = (file: string): string | undefined => {
    let stamp = sharedStamps.get(file);
    if (stamp === undefined && !sharedStamps.has(file)) sharedStamps.set(file, (stamp = sourceStamp(file)));
    return stamp;
  };
  /** SourceContext.unchanged for the usual session of several files: one archived session was read from each of
   * them and from them only, in this order (null: not so, ask the general case; it answers the same here). */
  const unchangedFiles = (files: string[], prefix: string): string[] | undefined | null => {
    const id = sessionsByFile.get(files[0]!);
    if (typeof id !== 'string' || !id.startsWith(prefix)) return null;
    const entry = previous.get(id)!;
    if (entry.fileCount !== files.length) return null;
    for (let i = 0; i < files.length; i++) {
      const file = files[i]!;
      if (entry.file(i) !== file || sessionsByFile.get(file) !== id) return null;
      for (let j = 0; j < i; j++) if (files[j] === file) return null;
    }
    for (let i = 0; i < files.length; i++) {
      const recorded = entry.stamp(i);
      if (!recorded || recorded !== sharedStamp(files[i]!)) return undefined;
    }
    return [id.slice(prefix.length)];
  };

  const only = options.sourceOptions.assistants;
  const chosen = (options.sources ?? SOURCES).filter((s) => !Array.isArray(only) || only.includes(s.id));
  const readSources = new Set<string>(chosen.map((s) => s.id));
  for (const source of chosen) {
    const prefix = `${source.id}/`;
    let sourceWarnings = 0;
    const history = histories.forSource(source.id, data.promptsPath(source.id));
    /** Prompts of the history files not read again (see SourceContext.historyUnchanged). */
    let promptsKept = 0;
    // A source notes each file's stamp just before reading it, so the stamped files are the ones to read.
    const toRead = new Map<string, number>();
    const read = new Set<string>();
    const progress = { source: source.id, label: source.label, done: 0, total: 0, bytes: { done: 0, total: 0 } };
    const readFiles = (files: string[]) => {
      const before = progress.done;
      for (const file of files) {
        const bytes = toRead.get(file);
        if (bytes === undefined || read.has(file)) continue;
        read.add(file);
        progress.done += 1;
        progress.bytes.done += bytes;
      }
      if (progress.done > before) options.onProgress?.(progress);
    };
    const ctx: SourceContext = {
      home: options.home,
      env: options.env,
      options: options.sourceOptions,
      get archived() {
        return (archivedKeys ??= new Set(previous.keys()));
      },
      unavailable: (file) => unavailable.add(file),
      prepare: {
        dataDir: options.dataDir,
        collectedAt: now,
        bodyPath: (sessionId) => data.bodyPath(source.id, sessionId),
        resumePath: (sessionId) => data.resumePath(source.id, sessionId),
        // A partial read (the main transcript gone) must not replace an archived whole session; one that never
        // had a main transcript (only subagent files) is replaced as its files grow.
        isArchived: (sessionId) => archivedWhole(previous.get(`${source.id}/${sessionId}`)),
      },
      stamp: async (file) => {
        const stamp = sourceStamp(file);
        if (!stamp) return;
        stamps.set(file, stamp);
        if (toRead.has(file)) return;
        const bytes = Number(stamp.slice(0, stamp.indexOf(':')));
        toRead.set(file, bytes);
        progress.total += 1;
        progress.bytes.total += bytes;
        options.onProgress?.(progress);
      },
      // Called once per session of a warm collect (thousands): plain loops, no intermediate arrays.
      unchanged: (files) => {
        if (files.length === 1) return unchangedFile(files[0]!, prefix);
        const one = unchangedFiles(files, prefix);
        if (one !== null) return one;
        const wanted = new Set(files);
        if (wanted.size !== files.length) return undefined;
        // The archived sessions read from exactly these files: every file is one's, and theirs are no others.
        const ids = new Set<string>();
        for (const file of files) {
          let owned = false;
          for (const id of ownersOf(file) ?? []) {
            if (!id.startsWith(prefix)) continue;
            ids.add(id);
            owned = true;
          }
          if (!owned) return undefined;
        }
        for (const id of ids) {
          const entry = previous.get(id)!;
          for (let i = 0; i < entry.fileCount; i++) {
            const file = entry.file(i);
            const recorded = entry.stamp(i);
            if (!wanted.has(file) || !recorded || recorded !== sharedStamp(file)) return undefined;
          }
        }
        return [...ids].map((id) => id.slice(prefix.length));
      },
      historyUnchanged: (file, context = '') => {
        const before = history.unchanged(file, sourceStamp(file), context);
        if (!before) return false;
        promptsKept += before.prompts;
        for (const w of before.warnings) ctx.warn(w);
        return true;
      },
      loadArchived: async (sessionId) => {
        const summary = previous.get(`${source.id}/${sessionId}`);
        return summary ? (await data.readBody(summary.body))?.session : undefined;
      },
      warn: (w) => {
        history.warned(w);
        sourceWarnings += 1;
        warnings.push(w);
        options.onWarning?.(w);
      },
    };
    const location = await source.locate(ctx);
    // A source read only when asked for (--messages-dir) and not asked for this run: not reported, and the
    // sessions archived from it keep their state instead of counting as gone from their source.
    if (location.looked.length === 0) {
      for (const entry of previous.values())
        if (entry.id.startsWith(`${source.id}/`)) for (const file of entry.files) unavailable.add(file);
      continue;
    }
    const report: SourceReport = {
      id: source.id,
      label: source.label,
      ...location,
      sessions: 0,
      added: 0,
      unchanged: 0,
      resumed: 0,
      prompts: 0,
      warnings: 0,
    };
    /** The archived prompt history, read with the first prompt this run reads. */
    let prompts: Map<string, HistoryPrompt> | undefined;
    let promptsChanged = false;
    if (location.found.length > 0) {
      for await (const item of source.read(location, ctx)) {
        if (item.kind === 'unchanged') {
          // The index's own id string where there is one: the presence check below then finds each by identity
          // (thousands of them) instead of comparing the characters of a copy.
          for (const sessionId of item.sessionIds) {
            const id = prefix + sessionId;
            seen.add(previous.get(id)?.id ?? id);
          }
          report.unchanged += item.sessionIds.length;
          continue;
        }
        if (item.kind === 'prompt') {
          history.prompt();
          prompts ??= new Map((await data.readPrompts(source.id)).map((p) => [promptKey(p), p]));
          const key = promptKey(item.prompt);
          const known = prompts.get(key);
          if (!known || JSON.stringify(known) !== JSON.stringify(item.prompt)) {
            prompts.set(key, item.prompt);
            promptsChanged = true;
          }
          report.prompts += 1;
          continue;
        }
        if (item.kind === 'prepared') {
          // Read, summarized and written by a worker thread (see SourceContext.prepared).
          const id = item.summary.id;
          readFiles(item.summary.files);
          if (!item.partial || !archivedWhole(previous.get(id))) seen.add(id);
          if (!item.written) continue;
          record(item.summary);
          report.sessions += 1;
          if (!previous.has(id)) report.added += 1;
          if (item.resumed) report.resumed += 1;
          continue;
        }
        const id = `${source.id}/${item.session.sessionId}`;
        readFiles(item.session.files);
        const archived = previous.get(id);
        if (!item.session.partial || !archivedWhole(archived)) seen.add(id);
        if (item.session.partial && archivedWhole(archived)) continue; // the archive has the full session; keep it
        // Loaded with the first session read here: a collect that finds nothing changed never compiles it.
        const { summarize } = await import('../model/summarize.ts');
        const summary = summarize(item.session, data.bodyPath(source.id, item.session.sessionId), now);
        summary.fileStamps = stampsOf(summary.files);
        await data.writeBody({ summary, session: item.session }, ctx.warn);
        record(summary);
        for (const other of item.session.absorbed ?? []) fold(`${source.id}/${other}`, id);
        report.sessions += 1;
        if (!archived) report.added += 1;
      }
    }
    if (prompts) {
      const merged = [...prompts.values()];
      promptsBySource[source.id] = merged;
      if (promptsChanged) {
        await data.writePrompts(
          source.id,
          merged.sort((a, b) => a.timestamp.localeCompare(b.timestamp)),
        );
      }
    }
    history.done();
    report.prompts += promptsKept;
    // Files that yielded no session (unreadable, nothing in them) are done too: the phase ends here.
    if (progress.done < progress.total) readFiles([...toRead.keys()]);
    report.warnings = sourceWarnings;
    reports.push(report);
  }

  const after = currentCopy ?? previous;
  let archivedOnly = 0;
  let changed = written.size > 0;
  /** The sessions whose presence differs from what the index says (writeSummaries keeps it for the others). */
  const presence = new Map<string, boolean>();
  for (const entry of after.values()) {
    const saw = seen.has(entry.id);
    // Unreadable this run, or of an assistant this run did not read (--assistants): its presence is not known.
    const unknown =
      !saw &&
      (entry.files.some((f) => unavailable.has(f)) || !readSources.has(entry.id.slice(0, entry.id.indexOf('/'))));
    const present = unknown ? entry.sourcePresent : saw;
    if (present !== entry.sourcePresent) {
      changed = true;
      presence.set(entry.id, present);
    }
    if (!present) archivedOnly += 1;
  }
  // Nothing read, nothing gone: the index on disk is already right (the common case of a frequent collect).
  if (changed) await data.writeSummaries(after.values(), written, presence);
  await histories.save();
  if (movedBodies.size > 0) {
    const referenced = new Set([...after.values()].map((e) => e.body));
    for (const body of movedBodies) if (!referenced.has(body)) await data.removeBody(body);
  }
  let sessionIds: ReadonlySet<string> | undefined;
  return {
    sources: reports,
    totalSessions: after.size,
    archivedOnly,
    warnings,
    archive: {
      get sessionIds() {
        return (sessionIds ??= new Set(after.keys()));
      },
      prompts: promptsBySource,
    },
  };
}

function promptKey(p: HistoryPrompt): string {
  return `${p.timestamp}\u0000${p.sessionId ?? ''}\u0000${p.text}`;
}

/** A source file's stamp, with its SQLite `-wal` where there is one (changes sit there until a checkpoint). */
function sourceStamp(file: string): string | undefined {
  const stamp = fileStamp(file);
  if (stamp === undefined || !mayBeSqlite(file) || !/\.(sqlite3?|db|vscdb)$/.test(file)) return stamp;
  const wal = fileStamp(`${file}-wal`);
  return wal === undefined ? stamp : `${stamp}:${wal}`;
}

/** Whether a file's name ends as a SQLite name (.sqlite, .sqlite3, .db, .vscdb) can: by its last character, which
 * spares a warm collect a regular expression over the path of each of thousands of transcripts. */
function mayBeSqlite(file: string): boolean {
  const last = file.charCodeAt(file.length - 1);
  return last === 0x65 /* e */ || last === 0x33 /* 3 */ || last === 0x62; /* b */
}

/** Whether an archived session was read with its main transcript: a later partial read must not replace it. */
function archivedWhole(entry: { files: string[] } | undefined): boolean {
  return entry !== undefined && hadMainTranscript(entry.files);
}
