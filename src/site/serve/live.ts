import { startStaticServer, type StaticServer } from './static-server.ts';
import { RebuildQueue, watchSources } from './watch.ts';

export interface LiveOptions {
  outDir: string;
  port: number;
  /** The site's base path (`/` or `/path/`). */
  base?: string;
  /** Directories whose changes never count (the data and output directories). */
  ignore: string[];
  /** Collects and builds; returns the source locations to watch and a one-line account of what changed (and
   * how long it took), and whether the site search's index changed. Calls `pagesWritten` once the site's pages
   * are written, before it waits for the search index. */
  rebuild: (pagesWritten: () => void) => Promise<{ locations: string[]; summary: string; searchChanged: boolean }>;
  log: (text: string) => void;
  /** Resolves when the user asks to stop (Ctrl-C). */
  stopSignal: Promise<void>;
}

/**
 * `serve --watch`: builds, serves the site with the reload script, and rebuilds whenever a source changes;
 * every open page reloads itself once the rebuild has written the pages, and once the site search's index is
 * written too (after a months-old session grew, most of the rebuild) its search box drops the index it loaded and
 * loads the new one on its next query. A change during a rebuild queues one more. Stops when `stopSignal`
 * resolves, after the rebuild in progress (during the first build, once it has ended, without serving).
 */
export async function serveLive(options: LiveOptions): Promise<void> {
  let serving = false;
  let stopAsked = false;
  void options.stopSignal.then(() => {
    stopAsked = true;
    if (!serving) options.log('Stopping once the first build has ended (Ctrl-C again to stop now)…\n');
  });
  const first = await options.rebuild(() => undefined);
  if (stopAsked) {
    options.log(`${first.summary}\n`);
    return;
  }
  serving = true;
  const server: StaticServer = await startStaticServer({
    root: options.outDir,
    port: options.port,
    base: options.base,
    live: true,
  });
  options.log(
    `${first.summary}\nServing ${options.outDir} at ${server.url} and watching the sources (Ctrl-C to stop)\n`,
  );
  let watcher: ReturnType<typeof watchSources> | undefined;
  const queue = new RebuildQueue(async () => {
    let reloaded = false;
    // Unless the rebuild says otherwise: one that failed may have written part of the index (before the pages, or
    // after they reloaded).
    let searchChanged = true;
    try {
      const rebuilt = await options.rebuild(() => {
        reloaded = true;
        server.reload();
      });
      searchChanged = rebuilt.searchChanged;
      watcher?.update(rebuilt.locations);
      if (!reloaded) server.reload();
      options.log(`${rebuilt.summary}\n`);
    } catch (error) {
      options.log(`agent-logbook: rebuild failed: ${(error as Error).message}\n`);
    } finally {
      if (searchChanged) server.searchChanged();
    }
  });
  watcher = watchSources(() => queue.request(), options.ignore);
  watcher.update(first.locations);
  await options.stopSignal;
  options.log(
    queue.busy ? 'Stopping once the rebuild in progress has ended (Ctrl-C again to stop now)…\n' : 'Stopping…\n',
  );
  watcher.close();
  await queue.stop();
  await server.close();
}
