import { promises as fs, statSync } from 'node:fs';
import path from 'node:path';

// The site build's record of what it wrote (`<data>/cache/site-build/<hash>.json`): each output's key and the
// size and mtime it left, so the next build renders only what changed and notices a file changed by hand.

export interface OutputRecord {
  key: string;
  /** A later session page's key made with what it read of the session's body in place of the body's stamps:
   * when only the body's stamps changed (the session grew past the page), this is still the same, and the page
   * is not made again. */
  inputs?: string;
  /** That key's part other than the body's stamps (the renderer, the options, the page's props and commits):
   * only when it is the same is the digest worth taking again. */
  base?: string;
  size: number;
  mtimeMs: number;
}

export interface Manifest {
  version: 1;
  outDir: string;
  /** The options, the archive's index and the state of the sessions' git repositories. */
  siteKey: string;
  /** The folders the sessions ran in, whose repositories' states are in `siteKey`. */
  cwds?: string[];
  /** Files that could not be rendered: made again by the next build (which warns again). */
  failed?: string[];
  /** Sessions' Markdown is packed by day (markdown-packs.ts); a record without this is of a site that has each
   * session's `.md.gz` beside its page. */
  packed?: true;
  outputs: Record<string, OutputRecord>;
}

/** Whether `file` is as the build that recorded `record` left it. */
export function intact(file: string, record: OutputRecord | undefined): boolean {
  if (!record) return false;
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat !== undefined && stat.size === record.size && stat.mtimeMs === record.mtimeMs;
}

export function allIntact(fileOf: (output: string) => string, outputs: Record<string, OutputRecord>): boolean {
  for (const [output, record] of Object.entries(outputs)) if (!intact(fileOf(output), record)) return false;
  return true;
}

export async function readManifest(file: string, outDir: string): Promise<Manifest | undefined> {
  try {
    const manifest = JSON.parse(await fs.readFile(file, 'utf8')) as Manifest;
    return manifest.version === 1 && manifest.outDir === outDir ? manifest : undefined;
  } catch {
    return undefined;
  }
}

export async function writeManifest(file: string, manifest: Manifest): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.tmp-${process.pid}`;
  await fs.writeFile(temp, JSON.stringify(manifest));
  await fs.rename(temp, file);
}

/** The folder of a site's sessions' Markdown members (see markdown-packs.ts), beside its record. */
export function membersDirOf(manifestFile: string): string {
  return `${manifestFile.replace(/\.json$/, '')}.markdown`;
}
