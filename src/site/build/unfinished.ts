import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { canonicalFolder, folderDigest, writeFileAtomic } from '../../util/fs.ts';
import { isProcessAlive, sweepTemporaryFiles } from '../../util/temp-files.ts';
import { membersDirOf } from './manifest.ts';

export interface BuildMark {
  /** The last build into the site did not finish (its mark was there). */
  left: boolean;
  /** Temporary files removed from the site, left there by the last build into it, which did not finish. */
  swept: number;
  /** The build finished: the next one has nothing to sweep (unless this one found some it had to leave). */
  finish(): Promise<void>;
}

const MARK = '.unfinished';
const MARK_TEMPORARY = /\.unfinished\.(\d+)\.tmp$/;

/**
 * Marks a build into `outDir` as under way, in the data directory. A build killed part way (a worker out of
 * memory, a Ctrl-C during a write, a power cut) can leave a temporary file beside an output or the search's
 * staging folder: no later build makes that name, so none would remove it. So when the last build into `outDir`
 * left its mark, this one first removes the temporary files of processes that are gone (see
 * sweepTemporaryFiles). Walking a heavy history's site costs ~1 s, so only then.
 */
export async function markBuildStarted(dataDir: string, outDir: string): Promise<BuildMark> {
  const folder = path.join(dataDir, 'cache', 'site-build');
  const out = path.resolve(outDir);
  // Named by the folder's real path, as the build's record is (see build.ts).
  const site = canonicalFolder(out);
  const mark = path.join(folder, `${folderDigest(site)}${MARK}`);
  await forgetGoneSites(folder, mark);
  const left = existsSync(mark);
  const { removed, kept } = left ? await sweepTemporaryFiles(out) : { removed: 0, kept: 0 };
  // Sessions' Markdown members are written beside the build's records (see markdown-packs.ts).
  const members = left ? await sweepTemporaryFiles(folder) : { removed: 0, kept: 0 };
  // Whole or not at all: a build killed as it wrote its mark must still leave one the next build reads.
  await writeFileAtomic(mark, `${JSON.stringify({ pid: process.pid, outDir: site })}\n`);
  return {
    left,
    swept: removed + members.removed,
    finish: async () => {
      if (kept + members.kept === 0) await fs.rm(mark, { force: true });
    },
  };
}

/**
 * The marks of sites that are gone (a `share` into a temporary folder that was killed): nothing to sweep there.
 * This build's own mark is kept even when it cannot be read, as the site it names is this one. A gone site's
 * build record and its sessions' Markdown members go too: a site's members are a tenth of its bytes.
 */
async function forgetGoneSites(folder: string, own: string): Promise<void> {
  const names = await fs.readdir(folder).catch(() => [] as string[]);
  // A mark's temporary file (writeFileAtomic's `<mark>.<pid>.tmp`) whose build was killed before renaming it.
  for (const name of names) {
    const pid = MARK_TEMPORARY.exec(name)?.[1];
    if (pid !== undefined && !isProcessAlive(Number(pid))) await fs.rm(path.join(folder, name), { force: true });
  }
  for (const name of names.filter((n) => n.endsWith(MARK))) {
    const file = path.join(folder, name);
    if (file === own) continue;
    const outDir = await fs
      .readFile(file, 'utf8')
      .then((text) => (JSON.parse(text) as { outDir?: unknown }).outDir)
      .catch(() => undefined);
    if (typeof outDir !== 'string' || gone(outDir)) await fs.rm(file, { force: true });
  }
  for (const name of names.filter((n) => SITE_RECORD.test(n))) {
    const outDir = await recordedOutDir(path.join(folder, name));
    if (outDir === undefined || !gone(outDir)) continue;
    await fs.rm(path.join(folder, name), { force: true });
    await fs.rm(membersDirOf(path.join(folder, name)), { recursive: true, force: true });
  }
}

/**
 * Whether a site a record or a mark names is gone, or is named by a spelling that is not its real path: a record
 * made before records were named by real paths, of a folder reached through a symbolic link. Its site's builds
 * now have a record of their own under the real path, so the old one would stay for good with its members.
 */
function gone(outDir: string): boolean {
  return !existsSync(outDir) || canonicalFolder(outDir) !== outDir;
}

/** A site build's record (build.ts), named after the site's folder. */
const SITE_RECORD = /^[0-9a-f]{16}\.json$/;

/** The site folder a build record names: its first field after the version, so a few bytes tell it (a heavy
 * history's record is MBs). */
async function recordedOutDir(file: string): Promise<string | undefined> {
  const handle = await fs.open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(8192), 0, 8192, 0);
    const field = /^\{"version":1,"outDir":("(?:[^"\\]|\\.)*")/.exec(buffer.toString('utf8', 0, bytesRead))?.[1];
    return field === undefined ? undefined : (JSON.parse(field) as string);
  } finally {
    await handle.close();
  }
}
