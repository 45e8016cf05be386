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
   * how long it took). */
  rebuild: () => Promise<{ locations: string[]; summary: string }>;
  log: (text: string) => void;
  /** Resolves when the user asks to stop (Ctrl-C). */
  stopSignal: Promise<void>;
}

/**
 * `serve --watch`: builds, serves the site with the reload script, and rebuilds whenever a source changes;
 * every open page reloads itself after each rebuild. A change during a rebuild queues one more. Stops when
 * `stopSignal` resolves, after the rebuild in progress.
 */
export async function serveLive(options: LiveOptions): Promise<void> {
  const first = await options.rebuild();
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
    try {
      const { locations, summary } = await options.rebuild();
      watcher?.update(locations);
      server.reload();
      options.log(`${summary}\n`);
    } catch (error) {
      options.log(`agent-logbook: rebuild failed: ${(error as Error).message}\n`);
    }
  });
  watcher = watchSources(() => queue.request(), options.ignore);
  watcher.update(first.locations);
  await options.stopSignal;
  options.log('Stopping…\n');
  watcher.close();
  await queue.idle();
  await server.close();
}
