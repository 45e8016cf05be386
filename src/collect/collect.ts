import type { SourceId } from '../model/message.ts';
import { projectSlug } from '../model/project.ts';
import type { HistoryPrompt, PromptRef, Session, SessionSummary } from '../model/session.ts';
import { renderSession } from '../render/render-session.ts';
import { SOURCES } from '../sources/index.ts';
import type { Source, SourceContext } from '../sources/source.ts';
import { sessionStats } from '../stats/session-stats.ts';
import type { CollectWarning } from '../util/warnings.ts';
import { DataDir } from './data-dir.ts';

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
  sessions: number;
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

const PROMPT_PREVIEW = 500;

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

  for (const source of options.sources ?? SOURCES) {
    let sourceWarnings = 0;
    const ctx: SourceContext = {
      home: options.home,
      env: options.env,
      options: options.sourceOptions,
      archived: new Set(previous.keys()),
      unavailable: (file) => unavailable.add(file),
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
      prompts: 0,
      warnings: 0,
    };
    const prompts = new Map((await data.readPrompts(source.id)).map((p) => [promptKey(p), p]));
    const promptsBefore = prompts.size;
    if (location.found.length > 0) {
      for await (const item of source.read(location, ctx)) {
        if (item.kind === 'prompt') {
          prompts.set(promptKey(item.prompt), item.prompt);
          report.prompts += 1;
          continue;
        }
        const id = `${source.id}/${item.session.sessionId}`;
        const archived = previous.get(id);
        if (!item.session.partial) seen.add(id);
        if (item.session.partial && archived) continue; // the archive has the full session; keep it
        renderSession(item.session);
        const summary = summarize(item.session, data.bodyPath(source.id, item.session.sessionId), now);
        await data.writeBody({ version: 1, summary, session: item.session });
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
  for (const summary of summaries.values()) {
    if (!seen.has(summary.id) && summary.files.some((f) => unavailable.has(f))) continue; // unknown this run
    summary.sourcePresent = seen.has(summary.id);
    if (!summary.sourcePresent) archivedOnly += 1;
  }
  await data.writeSummaries([...summaries.values()]);
  return { sources: reports, totalSessions: summaries.size, archivedOnly, warnings };
}

function summarize(session: Session, body: string, collectedAt: string): SessionSummary {
  const prompts: PromptRef[] = session.messages
    .filter((m) => m.metadata?.kind === 'prompt')
    .map((m) => {
      const text = m.segments
        .filter((s) => s.type === 'text')
        .map((s) => s.text ?? '')
        .join('\n')
        .trim();
      return {
        timestamp: m.timestamp,
        text: text.length > PROMPT_PREVIEW ? `${text.slice(0, PROMPT_PREVIEW)}…` : text,
      };
    });
  return {
    id: `${session.source}/${session.sessionId}`,
    source: session.source,
    sessionId: session.sessionId,
    title: session.title,
    cwd: session.cwd,
    project: projectSlug(session.cwd),
    ...(session.gitBranch ? { gitBranch: session.gitBranch } : {}),
    startedAt: session.startedAt,
    endedAt: session.endedAt,
    models: session.models,
    ...(session.cliVersion ? { cliVersion: session.cliVersion } : {}),
    files: session.files,
    sourcePresent: true,
    collectedAt,
    subagents: session.subagents.length,
    stats: sessionStats(session),
    prompts,
    body,
  };
}

function promptKey(p: HistoryPrompt): string {
  return `${p.timestamp}\u0000${p.sessionId ?? ''}\u0000${p.text}`;
}
