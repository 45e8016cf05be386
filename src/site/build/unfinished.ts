import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { sweepTemporaryFiles } from '../../util/temp-files.ts';

export interface BuildMark {
  /** Temporary files removed from the site, left there by the last build into it, which did not finish. */
  swept: number;
  /** The build finished: the next one has nothing to sweep. */
  finish(): Promise<void>;
}

/**
 * Marks a build into `outDir` as under way, in the data directory. A build killed part way (a worker out of
 * memory, a Ctrl-C during a write, a power cut) can leave a temporary file beside an output or the search's
 * staging folder: no later build makes that name, so none would remove it. So when the last build into `outDir`
 * left its mark, this one first removes the temporary files of processes that are gone. Walking the site costs a
 * heavy history ~1 s, so only then.
 */
export async function markBuildStarted(dataDir: string, outDir: string): Promise<BuildMark> {
  const mark = path.join(
    dataDir,
    'cache',
    'site-build',
    `${createHash('sha256').update(path.resolve(outDir)).digest('hex').slice(0, 16)}.unfinished`,
  );
  const left = await fs.stat(mark).then(
    () => true,
    () => false,
  );
  // The data directory's lock is held: no other build from it is under way, this process's earlier ones ended.
  const swept = left ? await sweepTemporaryFiles(outDir, true) : 0;
  await fs.mkdir(path.dirname(mark), { recursive: true });
  await fs.writeFile(mark, `${process.pid}\n`);
  return { swept, finish: () => fs.rm(mark, { force: true }) };
}
