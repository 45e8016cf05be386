import path from 'node:path';
import type { SourceId } from '../model/message.ts';
import { readJsonFile, writeFileAtomic } from '../util/fs.ts';
import { fileStamp } from '../util/stamp.ts';
import type { CollectWarning } from '../util/warnings.ts';

/** A prompt history file as the last collect that read it found it. */
export interface HistoryRead {
  stamp: string;
  /** What else the source made the file's prompts from (e.g. the project they are filed under). */
  context: string;
  /** Prompts it held, and what was wrong in it, for the report of a run that does not read it again (a broken
   * line is warned about on every run, as it was when the file was read every time). */
  prompts: number;
  warnings: CollectWarning[];
}

interface SourceHistories {
  /** The stamp of the archive's `prompts/<source>.json` once those reads were merged into it (null: none). */
  archive: string | null;
  files: Record<string, HistoryRead>;
}

interface CacheFile {
  version: number;
  sources: Partial<Record<SourceId, SourceHistories>>;
}

const VERSION = 1;

/**
 * The prompt history files (Claude's and Codex's `history.jsonl`, Gemini's `logs.json`) each source read, by
 * stamp (`<data>/cache/history-files.json`, derived data): a file as it was when its prompts were merged into
 * the archive is not read again, as an unchanged session is not. Valid only while the archive's prompt file is
 * the one those reads were merged into, so a prompt file restored from a backup has every history read again.
 */
export class HistoryFiles {
  private readonly next: CacheFile['sources'];
  private changed = false;

  private constructor(
    private readonly file: string,
    private readonly known: CacheFile['sources'],
  ) {
    this.next = { ...known };
  }

  static async open(dataDir: string): Promise<HistoryFiles> {
    const file = path.join(dataDir, 'cache', 'history-files.json');
    const cached = await readJsonFile<CacheFile>(file);
    return new HistoryFiles(file, cached?.version === VERSION && cached.sources ? cached.sources : {});
  }

  /** One source's histories in this run; `promptsFile` is the archive's `prompts/<source>.json`. */
  forSource(source: SourceId, promptsFile: string): SourceHistoryRun {
    const known = this.known[source];
    const trusted = known !== undefined && known.archive === (fileStamp(promptsFile) ?? null);
    const files: Record<string, HistoryRead> = {};
    let reading: { file: string; read: HistoryRead } | undefined;
    return {
      unchanged: (file, stamp, context) => {
        const before = trusted ? known.files[file] : undefined;
        reading = undefined;
        if (stamp === undefined) return undefined;
        if (before?.stamp === stamp && before.context === context && Array.isArray(before.warnings)) {
          files[file] = before;
          return before;
        }
        reading = { file, read: (files[file] = { stamp, context, prompts: 0, warnings: [] }) };
        return undefined;
      },
      prompt: () => {
        if (reading) reading.read.prompts += 1;
      },
      warned: (warning) => {
        if (reading && warning.file === reading.file) reading.read.warnings.push(warning);
      },
      done: () => {
        const now: SourceHistories = { archive: fileStamp(promptsFile) ?? null, files };
        if (JSON.stringify(now) !== JSON.stringify(known)) this.changed = true;
        this.next[source] = now;
      },
    };
  }

  /** Writes the cache when a history was read, or is gone. */
  async save(): Promise<void> {
    if (!this.changed) return;
    await writeFileAtomic(this.file, JSON.stringify({ version: VERSION, sources: this.next } satisfies CacheFile));
    this.changed = false;
  }
}

export interface SourceHistoryRun {
  /** What the last read of `file` found, when it is as that read found it (same stamp, same context); else
   * undefined, and the prompts and warnings about the file from now until the next file are its own. */
  unchanged(file: string, stamp: string | undefined, context: string): HistoryRead | undefined;
  /** Counts a prompt the source yielded. */
  prompt(): void;
  /** Notes a warning the source gave (kept when it is about the history file being read). */
  warned(warning: CollectWarning): void;
  /** The source is done: what it read is what the next run compares with. */
  done(): void;
}
