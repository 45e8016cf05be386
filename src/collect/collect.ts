import { promises as fs } from 'node:fs';
import type { SourceId } from '../model/message.ts';
import type { HistoryPrompt } from '../model/session.ts';
import { SOURCES } from '../sources/index.ts';
import type { Source, SourceContext } from '../sources/source.ts';
import type { CollectWarning } from '../util/warnings.ts';
import { DataDir } from './data-dir.ts';
import { summarize } from './summarize.ts';

export interface CollectOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  dataDir: string;
  /** Source location flags (`claudeDir`, …) and `explicitHome`. */
  sourceOptions: Record<string, string | string[] | undefined>;
  sources?: readonly Source[];
  onWarning?: (w: CollectWarning) => void;
  now?: () => Date;
}

export interface SourceReport {
  id: SourceId;
  label: string;
  looked: string[];
  found: string[];
  /** Sessions read (new or changed) in this run. */
  sessions: number;
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
}

export async function collect(options: CollectOptions): Promise<CollectReport> {
  const data = new DataDir(options.dataDir);
  await data.open();
  const now = (options.now ?? (() => new Date()))().toISOString();
  const previous = new Map((await data.readSummaries()).map((s) => [s.id, s]));
  const summaries = new Map(previous);
  const warnings: CollectWarning[] = [];
  const reports: SourceReport[] = [];
  /** Sessions a source produced in this run; every other archived session is gone from its source. */
  const seen = new Set<string>();
  const unavailable = new Set<string>();
  const stamps = new Map<string, string>();
  const stampsOf = (files: string[]) =>
    Object.fromEntries(files.flatMap((f) => (stamps.has(f) ? [[f, stamps.get(f)!] as const] : [])));
  /** file → archived sessions read from it */
  const sessionsByFile = new Map<string, string[]>();
  for (const summary of previous.values()) {
    for (const file of summary.files) sessionsByFile.set(file, [...(sessionsByFile.get(file) ?? []), summary.id]);
  }

  for (const source of options.sources ?? SOURCES) {
    let sourceWarnings = 0;
    const ctx: SourceContext = {
      home: options.home,
      env: options.env,
      options: options.sourceOptions,
      archived: new Set(previous.keys()),
      unavailable: (file) => unavailable.add(file),
      prepare: {
        dataDir: options.dataDir,
        collectedAt: now,
        bodyPath: (sessionId) => data.bodyPath(source.id, sessionId),
        resumePath: (sessionId) => data.resumePath(source.id, sessionId),
        isArchived: (sessionId) => previous.has(`${source.id}/${sessionId}`),
      },
      stamp: async (file) => {
        const current = await fileStamp(file);
        if (current) stamps.set(file, current);
      },
      unchanged: async (files) => {
        const ids = [...new Set(files.flatMap((f) => sessionsByFile.get(f) ?? []))].filter((id) =>
          id.startsWith(`${source.id}/`),
        );
        if (ids.length === 0) return undefined;
        const covered = new Set(ids.flatMap((id) => previous.get(id)!.files));
        if (covered.size !== files.length || !files.every((f) => covered.has(f))) return undefined;
        for (const id of ids) {
          const recorded = previous.get(id)!.fileStamps ?? {};
          for (const file of previous.get(id)!.files) {
            if (!recorded[file] || recorded[file] !== (await fileStamp(file))) return undefined;
          }
        }
        return ids.map((id) => id.slice(source.id.length + 1));
      },
      loadArchived: async (sessionId) => {
        const summary = previous.get(`${source.id}/${sessionId}`);
        return summary ? (await data.readBody(summary.body))?.session : undefined;
      },
      warn: (w) => {
        sourceWarnings += 1;
        warnings.push(w);
        options.onWarning?.(w);
      },
    };
    const location = await source.locate(ctx);
    const report: SourceReport = {
      id: source.id,
      label: source.label,
      ...location,
      sessions: 0,
      unchanged: 0,
      resumed: 0,
      prompts: 0,
      warnings: 0,
    };
    const prompts = new Map((await data.readPrompts(source.id)).map((p) => [promptKey(p), p]));
    const promptsBefore = prompts.size;
    if (location.found.length > 0) {
      for await (const item of source.read(location, ctx)) {
        if (item.kind === 'unchanged') {
          for (const sessionId of item.sessionIds) seen.add(`${source.id}/${sessionId}`);
          report.unchanged += item.sessionIds.length;
          continue;
        }
        if (item.kind === 'prompt') {
          prompts.set(promptKey(item.prompt), item.prompt);
          report.prompts += 1;
          continue;
        }
        if (item.kind === 'prepared') {
          // Read, summarized and written by a worker thread (see SourceContext.prepared).
          const id = item.summary.id;
          if (!item.partial) seen.add(id);
          if (!item.written) continue;
          item.summary.fileStamps = stampsOf(item.summary.files);
          summaries.set(id, item.summary);
          report.sessions += 1;
          if (item.resumed) report.resumed += 1;
          continue;
        }
        const id = `${source.id}/${item.session.sessionId}`;
        const archived = previous.get(id);
        if (!item.session.partial) seen.add(id);
        if (item.session.partial && archived) continue; // the archive has the full session; keep it
        const summary = summarize(item.session, data.bodyPath(source.id, item.session.sessionId), now);
        summary.fileStamps = stampsOf(summary.files);
        await data.writeBody({ summary, session: item.session });
        summaries.set(id, summary);
        report.sessions += 1;
      }
    }
    if (prompts.size !== promptsBefore || report.prompts > 0) {
      await data.writePrompts(
        source.id,
        [...prompts.values()].sort((a, b) => a.timestamp.localeCompare(b.timestamp)),
      );
    }
    report.warnings = sourceWarnings;
    reports.push(report);
  }

  let archivedOnly = 0;
  let changed = reports.some((r) => r.sessions > 0) || summaries.size !== previous.size;
  for (const summary of summaries.values()) {
    const unknown = !seen.has(summary.id) && summary.files.some((f) => unavailable.has(f)); // unreadable this run
    if (!unknown && summary.sourcePresent !== seen.has(summary.id)) {
      summary.sourcePresent = seen.has(summary.id);
      changed = true;
    }
    if (!summary.sourcePresent) archivedOnly += 1;
  }
  // Nothing read, nothing gone: the index on disk is already right (the common case of a frequent collect).
  if (changed) await data.writeSummaries([...summaries.values()]);
  return { sources: reports, totalSessions: summaries.size, archivedOnly, warnings };
}

function promptKey(p: HistoryPrompt): string {
  return `${p.timestamp}\u0000${p.sessionId ?? ''}\u0000${p.text}`;
}

/** `size:mtimeMs` of a file (and of its SQLite `-wal`, where changes sit until a checkpoint), or undefined. */
async function fileStamp(file: string): Promise<string | undefined> {
  try {
    const stat = await fs.stat(file);
    let stamp = `${stat.size}:${stat.mtimeMs}`;
    if (/\.(sqlite3?|db)$/.test(file)) {
      const wal = await fs.stat(`${file}-wal`).catch(() => undefined);
      if (wal) stamp += `:${wal.size}:${wal.mtimeMs}`;
    }
    return stamp;
  } catch {
    return undefined;
  }
}
