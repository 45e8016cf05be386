import { promises as fs } from 'node:fs';
import path from 'node:path';
import { collect } from '../collect/collect.ts';
import { DataDir } from '../archive/data-dir.ts';
import { SOURCE_IDS } from '../model/message.ts';
import type { HistoryPrompt, SessionSummary } from '../model/session.ts';
import type { WeekStart } from '../stats/calendar.ts';
import { buildDayIndexes, buildProjectIndexes, type DayIndex, type ProjectIndex } from '../stats/indexes.ts';
import type { ShareLens } from '../privacy/share-lens.ts';

export interface LogbookOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  dataDir: string;
  sourceOptions: Record<string, string | string[] | undefined>;
  timeZone: string;
  weekStart: WeekStart;
  /** Read the sources (incrementally) at start and before answering; false serves the archive as it is. */
  collect: boolean;
  /** A collect at most this often, in milliseconds. */
  refreshMs: number;
  /** Set with --share: everything a tool returns goes through it. */
  share?: ShareLens;
  log: (line: string) => void;
}

/** What the tools answer from: the archive's summaries and prompt history, and the indexes over them. */
export interface Snapshot {
  summaries: SessionSummary[];
  byKey: Map<string, SessionSummary>;
  history: HistoryPrompt[];
  days: Map<string, DayIndex>;
  projects: Map<string, ProjectIndex>;
  /** Answers worth keeping while the archive stays the same (a day's report is asked for again and again). */
  memo: Map<string, unknown>;
}

/**
 * The data directory as the MCP tools see it: kept up to date by incremental collects (at most one every
 * `refreshMs`, one at a time), and read again only when the index files changed.
 */
export class Logbook {
  private lastCollect = 0;
  private running?: Promise<void>;
  private cached?: { stamp: string; snapshot: Snapshot };

  constructor(readonly options: LogbookOptions) {}

  get dataDir(): string {
    return this.options.dataDir;
  }

  get timeZone(): string {
    return this.options.timeZone;
  }

  get weekStart(): WeekStart {
    return this.options.weekStart;
  }

  get share(): ShareLens | undefined {
    return this.options.share;
  }

  /** Starts a collect when one is due (or joins the one running) and waits for it. */
  async refresh(): Promise<void> {
    if (!this.options.collect) return;
    if (this.running) return this.running;
    if (this.lastCollect > 0 && Date.now() - this.lastCollect < this.options.refreshMs) return;
    this.running = this.collectNow().finally(() => {
      this.lastCollect = Date.now();
      this.running = undefined;
    });
    return this.running;
  }

  /** Waits for a collect under way, if any (so that one is not cut off when the server stops). */
  async idle(): Promise<void> {
    await this.running;
  }

  private async collectNow(): Promise<void> {
    const started = Date.now();
    try {
      const report = await collect({
        home: this.options.home,
        env: this.options.env,
        dataDir: this.options.dataDir,
        sourceOptions: this.options.sourceOptions,
      });
      const read = report.sources.reduce((n, s) => n + s.sessions, 0);
      if (read > 0 || this.lastCollect === 0) {
        this.options.log(
          `collected: ${read} sessions read, ${report.totalSessions} in ${this.options.dataDir} ` +
            `(${report.warnings.length} warnings, ${((Date.now() - started) / 1000).toFixed(1)}s)`,
        );
      }
    } catch (error) {
      this.options.log(`collect failed: ${(error as Error).message}; answering from the data directory as it is`);
    }
  }

  /** The archive as of now (after a refresh when one is due). */
  async snapshot(): Promise<Snapshot> {
    await this.refresh();
    const stamp = await this.stamp();
    if (this.cached?.stamp === stamp) return this.cached.snapshot;
    // Shared, the records are read through the lens, so the indexes and reports below see only cleaned ones.
    const { summaries, history } = this.options.share
      ? await this.options.share.read(this.options.dataDir)
      : await readArchive(this.options.dataDir);
    const snapshot: Snapshot = {
      summaries,
      byKey: new Map(summaries.map((s) => [s.id, s])),
      history,
      days: buildDayIndexes(summaries, history, this.options.timeZone),
      projects: buildProjectIndexes(summaries),
      memo: new Map(),
    };
    this.cached = { stamp, snapshot };
    return snapshot;
  }

  /** Size, mtime and inode of the files a snapshot is made from. */
  private async stamp(): Promise<string> {
    const files = [
      path.join(this.options.dataDir, 'index', 'sessions.json'),
      ...SOURCE_IDS.map((s) => path.join(this.options.dataDir, 'prompts', `${s}.json`)),
    ];
    const stats = await Promise.all(files.map((f) => fs.stat(f).catch(() => undefined)));
    return stats.map((s) => (s ? `${s.size}:${s.mtimeMs}:${s.ino}` : '-')).join('|');
  }
}

async function readArchive(dataDir: string): Promise<{ summaries: SessionSummary[]; history: HistoryPrompt[] }> {
  const data = new DataDir(dataDir);
  const summaries = await data.readSummaries();
  const history = (await Promise.all(SOURCE_IDS.map((s) => data.readPrompts(s)))).flat();
  return { summaries, history };
}
