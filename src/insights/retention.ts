import { promises as fs } from 'node:fs';
import path from 'node:path';
import { DataDir } from '../archive/data-dir.ts';
import type { SourceId } from '../model/message.ts';
import type { HistoryPrompt, SessionSummary } from '../model/session.ts';
import { locateClaude } from '../sources/claude-code/paths.ts';
import { writeFileAtomic } from '../util/fs.ts';

/** How long each assistant keeps its history, and whether collecting keeps up with it. */

export const CLAUDE_DEFAULT_CLEANUP_DAYS = 30;
/** Warn when the last collect is this close (in days) to the deletion age. */
const MARGIN_DAYS = 2;

export interface SourceRetention {
  source: SourceId;
  /** One sentence naming the setting, e.g. "Claude Code deletes transcripts after 30 days". */
  policy: string;
  /** The setting that decides it, and where it was read (absent: the default). */
  setting?: string;
  from?: string;
  /** Days a session is kept, when the assistant deletes by age. */
  days?: number;
}

/** `<data>/insights/retention.json`, written by `collect` for the site's home page. */
export interface RetentionFile {
  checkedAt: string;
  sources: SourceRetention[];
}

export const RETENTION_FILE = path.join('insights', 'retention.json');

export const AMAZON_Q_RETENTION: SourceRetention = {
  source: 'amazon-q',
  policy: 'Amazon Q keeps one conversation per directory: a new `q chat` in the same directory overwrites the last one',
  setting: 'no setting',
};

export const CODEX_RETENTION: SourceRetention = {
  source: 'codex',
  policy: 'Codex CLI keeps its session rollouts; it deletes none by itself',
  setting: 'no setting',
};

export function claudeRetention(days: number | undefined, from?: string): SourceRetention {
  const n = days ?? CLAUDE_DEFAULT_CLEANUP_DAYS;
  const setting = days === undefined ? '`cleanupPeriodDays`, default' : '`cleanupPeriodDays`';
  return {
    source: 'claude-code',
    policy:
      n <= 0
        ? 'Claude Code keeps no transcripts'
        : `Claude Code deletes transcripts after ${n} day${n === 1 ? '' : 's'}`,
    setting,
    ...(days !== undefined && from ? { from } : {}),
    days: n,
  };
}

/** Claude Code's `cleanupPeriodDays` from the first settings.json that sets it, in its config dirs. */
export async function readClaudeCleanup(
  home: string,
  env: NodeJS.ProcessEnv,
  sourceOptions: Record<string, string | string[] | undefined>,
): Promise<SourceRetention> {
  const location = await locateClaude({ home, env, options: sourceOptions, warn: () => {}, archived: new Set() });
  for (const dir of location.found.length ? location.found : location.looked) {
    const file = path.join(dir, 'settings.json');
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch {
      continue;
    }
    try {
      const value = (JSON.parse(text) as { cleanupPeriodDays?: unknown }).cleanupPeriodDays;
      if (typeof value === 'number' && Number.isFinite(value)) return claudeRetention(value, file);
    } catch {
      // A settings file Claude Code could not read either: its default applies.
    }
  }
  return claudeRetention(undefined);
}

export function retentionSentence(r: SourceRetention): string {
  return r.setting && r.setting !== 'no setting' ? `${r.policy} — ${r.setting}` : r.policy;
}

/** Sessions per source that exist only in the archive: their assistant deleted or overwrote them. */
export function savedFromDeletion(sessions: readonly Pick<SessionSummary, 'source' | 'sourcePresent'>[]) {
  const saved: Partial<Record<SourceId, number>> = {};
  for (const s of sessions) if (!s.sourcePresent) saved[s.source] = (saved[s.source] ?? 0) + 1;
  return saved;
}

/**
 * After a collect: writes what each assistant keeps (for the home page) and returns warnings about gaps in
 * collecting, each with its fix: prompts in Claude's history whose sessions were deleted before any collect saw
 * them, and a previous collect so long ago that sessions may have been deleted in between.
 */
export async function checkRetention(options: {
  home: string;
  env: NodeJS.ProcessEnv;
  dataDir: string;
  sourceOptions: Record<string, string | string[] | undefined>;
  now?: Date;
  /** What the collect just before found in the archive (CollectReport.archive); else it is read. */
  archive?: { sessionIds: ReadonlySet<string>; prompts: Partial<Record<SourceId, readonly HistoryPrompt[]>> };
}): Promise<string[]> {
  const now = options.now ?? new Date();
  const claude = await readClaudeCleanup(options.home, options.env, options.sourceOptions);
  const file = path.join(options.dataDir, RETENTION_FILE);
  let previous: RetentionFile | undefined;
  try {
    previous = JSON.parse(await fs.readFile(file, 'utf8')) as RetentionFile;
  } catch {
    previous = undefined;
  }
  const record: RetentionFile = {
    checkedAt: now.toISOString(),
    sources: [claude, CODEX_RETENTION, AMAZON_Q_RETENTION],
  };
  await fs.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(record, null, 2)}\n`);

  const warnings: string[] = [];
  const days = claude.days ?? CLAUDE_DEFAULT_CLEANUP_DAYS;
  const where = claude.from ?? path.join(options.home, '.claude', 'settings.json');
  const fix = `run \`agent-logbook collect\` daily (cron, launchd or a shell hook), or raise \`cleanupPeriodDays\` in ${where} (now ${days}${claude.from ? '' : ', the default'})`;

  const data = new DataDir(options.dataDir);
  const archived = options.archive?.sessionIds ?? new Set((await data.readIndexEntries()).map((e) => e.id));
  const prompts = options.archive?.prompts['claude-code'] ?? (await data.readPrompts('claude-code'));
  const orphans = prompts.filter((p) => p.sessionId && !archived.has(`claude-code/${p.sessionId}`));
  const lost = new Set(orphans.map((p) => p.sessionId));
  if (lost.size > 0) {
    const times = orphans.map((p) => p.timestamp).sort();
    warnings.push(
      `Claude Code: ${lost.size} session${lost.size === 1 ? ' was' : 's were'} deleted before any collect saw ` +
        `${lost.size === 1 ? 'it' : 'them'} (prompts of ${times[0]!.slice(0, 10)} to ${times.at(-1)!.slice(0, 10)} ` +
        `are in history.jsonl, the transcripts are gone): a gap in collecting. To keep every session, ${fix}.`,
    );
  }
  if (previous?.checkedAt && days > 0) {
    const idle = (now.getTime() - Date.parse(previous.checkedAt)) / 86_400_000;
    if (idle >= days - MARGIN_DAYS) {
      warnings.push(
        `Claude Code: the last collect was ${Math.floor(idle)} days ago and transcripts are deleted after ${days} ` +
          `days, so sessions can be deleted before a collect sees them. ${fix[0]!.toUpperCase()}${fix.slice(1)}.`,
      );
    }
  }
  return warnings;
}

/** The retention the home page shows: what the last collect read, else the assistants' defaults. */
export function retentionOrDefaults(file: RetentionFile | undefined): SourceRetention[] {
  return file?.sources?.length ? file.sources : [claudeRetention(undefined), CODEX_RETENTION, AMAZON_Q_RETENTION];
}
