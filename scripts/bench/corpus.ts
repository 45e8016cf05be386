// The bench's corpus on disk: made once per profile, measured as it is, and the changes a measurement makes
// (grown files, a new session) undone afterwards so that the next run starts from the same bytes.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { amazonQDatabase } from './generate-amazonq.ts';
import { appendClaudeLines, prng, uuidFrom, writeClaudeSession } from './generate-claude.ts';
import { type OtherProfiles, otherSourcePaths } from './other-sources.ts';

/** Part of the corpus manifest: bump it when a generator changes its output, so that old corpora are rebuilt. */
export const GENERATOR_VERSION = 3;

export interface FileInfo {
  file: string;
  bytes: number;
}

/** Every file under `dir` whose name ends with `suffix`, with its size (none when `dir` is missing); `dir` may
 * also be a single file. */
export async function filesUnder(dir: string, suffix = ''): Promise<FileInfo[]> {
  const stat = await fs.stat(dir).catch(() => undefined);
  if (!stat) return [];
  if (stat.isFile()) return [{ file: dir, bytes: stat.size }];
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  const files: FileInfo[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(suffix)) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.push({ file, bytes: (await fs.stat(file)).size });
  }
  return files;
}

export const sum = (files: FileInfo[]): number => files.reduce((a, f) => a + f.bytes, 0);
export const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);

export async function directoryBytes(dir: string): Promise<number> {
  return sum(await filesUnder(dir));
}

/** Regenerates `dir` with `generate` unless its manifest records the same profile. */
export async function ensureCorpus(dir: string, profile: unknown, generate: () => Promise<void>): Promise<void> {
  const manifestFile = path.join(dir, 'manifest.json');
  const manifest = await fs.readFile(manifestFile, 'utf8').then(JSON.parse, () => undefined);
  if (JSON.stringify(manifest?.profile) === JSON.stringify(profile)) return;
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true });
  await generate();
  await fs.writeFile(manifestFile, JSON.stringify({ profile }));
}

/** What the corpus holds, per source, and the Claude files by size (the measurements grow two of them). */
export async function corpusComposition(corpus: string, amazonQConversations: number, others: OtherProfiles) {
  const claudeFiles = (await filesUnder(path.join(corpus, '.claude', 'projects'), '.jsonl')).sort(
    (a, b) => a.bytes - b.bytes || a.file.localeCompare(b.file),
  );
  const codexFiles = await filesUnder(path.join(corpus, '.codex', 'sessions'), '.jsonl');
  const codexHistory = await filesUnder(path.join(corpus, '.codex', 'history.jsonl'));
  const dbBytes = (await fs.stat(amazonQDatabase(corpus))).size;
  const otherSources = [];
  for (const { name, label, sessions, paths } of otherSourcePaths(corpus, others)) {
    let bytes = 0;
    for (const p of paths) bytes += sum(await filesUnder(p));
    otherSources.push({ name, label, sessions, bytes });
  }
  const composition = {
    claude: { files: claudeFiles.length, bytes: sum(claudeFiles) },
    codex: { files: codexFiles.length, bytes: sum(codexFiles), historyBytes: sum(codexHistory) },
    amazonq: { conversations: amazonQConversations, bytes: dbBytes },
    ...Object.fromEntries(otherSources.map(({ name, sessions, bytes }) => [name, { sessions, bytes }])),
  };
  const otherBytes = otherSources.reduce((a, o) => a + o.bytes, 0);
  const totalBytes = composition.claude.bytes + composition.codex.bytes + composition.amazonq.bytes + otherBytes;
  const sessions =
    claudeFiles.length + codexFiles.length + amazonQConversations + otherSources.reduce((a, o) => a + o.sessions, 0);
  const lines = [
    `  Claude Code: ${composition.claude.files} session files, ${mb(composition.claude.bytes)} MB`,
    `  Codex CLI:   ${composition.codex.files} rollouts, ${mb(composition.codex.bytes)} MB (+ history.jsonl ${mb(composition.codex.historyBytes)} MB)`,
    `  Amazon Q:    ${composition.amazonq.conversations} conversations, data.sqlite3 ${mb(composition.amazonq.bytes)} MB`,
    ...otherSources.map((o) => `  ${`${o.label}:`.padEnd(12)} ${o.sessions} sessions, ${mb(o.bytes)} MB`),
    `  total:       ${sessions} sessions, ${mb(totalBytes)} MB`,
  ];
  return { claudeFiles, composition, totalBytes, lines };
}

/** The changes measurements make to the corpus, recorded so that `restore` undoes them. */
export class CorpusChanges {
  private readonly originalSizes = new Map<string, number>();
  private added = 0;
  private readonly newProject: string;

  /** `template`: a Claude file whose size and folder a new session takes. */
  constructor(private readonly template: FileInfo) {
    // A new session of the median size, named as Claude Code names them (a UUID), in a project of its own.
    this.newProject = path.join(path.dirname(path.dirname(template.file)), '-home-bench-work-new');
  }

  grow(file: string, lines: number): () => Promise<void> {
    return async () => {
      if (!this.originalSizes.has(file)) this.originalSizes.set(file, (await fs.stat(file)).size);
      await appendClaudeLines(file, lines);
    };
  }

  readonly addFile = async (): Promise<void> => {
    const random = prng(0xadd + this.added++);
    const added = path.join(this.newProject, `${uuidFrom(random)}.jsonl`);
    await fs.mkdir(this.newProject, { recursive: true });
    await writeClaudeSession(
      added,
      this.template.bytes,
      '/home/bench/work/new',
      Date.parse('2026-11-01T09:00:00Z'),
      random,
    );
  };

  async restore(): Promise<void> {
    for (const [file, size] of this.originalSizes) await fs.truncate(file, size);
    this.originalSizes.clear();
    await fs.rm(this.newProject, { recursive: true, force: true });
  }
}
