import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { outputPath, type RouteFile, routeFile, urlPathOf } from './routes.ts';
import { gzipForSite } from '../../util/gzip.ts';
import { importModule } from '../../util/import-module.ts';
import { temporaryBeside } from '../../util/temp-files.ts';
import type { SessionHead } from '../../model/session.ts';

/** The compiled renderer bundle (see renderer-entry.ts). */
export interface RendererBundle {
  experimental_AstroContainer: {
    create(options?: unknown): Promise<{
      renderToResponse(component: unknown, options: Record<string, unknown>): Promise<Response>;
    }>;
  };
  pageModules: Record<string, Record<string, unknown>>;
  baseUrl: string;
  /** See sessionPageDigest in site/data.ts. */
  sessionPageDigest(head: SessionHead, page: number): string;
  closeSessionPages(): void;
  /** See placeThread in site/data.ts. */
  spliceThreads(): void;
  takeThreadBytes(): Buffer | undefined;
  THREAD_MARKER: string;
  /** See withIndexStampHeld in site/data.ts. */
  withIndexStampHeld<T>(render: () => Promise<T>, build?: string): Promise<T>;
}

export async function loadBundle(entry: string): Promise<RendererBundle> {
  return importModule<RendererBundle>(pathToFileURL(entry).href);
}

export interface RouteToRender {
  route: RouteFile;
  params: Record<string, string | undefined>;
  props: Record<string, unknown>;
  output: string;
}

/** Every route of every page module (or of the modules `only` names), with its output file, in a stable order. */
export async function listRoutes(
  modules: Record<string, Record<string, unknown>>,
  only?: ReadonlySet<string>,
): Promise<RouteToRender[]> {
  const routes: RouteToRender[] = [];
  const seen = new Map<string, string>();
  for (const file of Object.keys(modules).sort()) {
    if (only && !only.has(file)) continue;
    const route = routeFile(file);
    if (!route) continue;
    const module = modules[file]!;
    const entries: { params?: Record<string, string | undefined>; props?: Record<string, unknown> }[] = route.dynamic
      ? await (module.getStaticPaths as () => Promise<typeof entries> | typeof entries)()
      : [{}];
    for (const entry of entries.flat()) {
      const params = entry.params ?? {};
      const output = outputPath(route, params);
      const other = seen.get(output);
      if (other) throw new Error(`two routes make ${output}: ${other} and ${file}`);
      seen.set(output, file);
      routes.push({ route, params, props: entry.props ?? {}, output });
    }
  }
  return routes;
}

/** The head and page number of a session's page after the first (see SessionPage.astro): a page whose props
 * leave out what changes as the session grows, and whose body is the page's own part of the session's. */
export function laterSessionPage(route: RouteToRender): { head: SessionHead; page: number } | undefined {
  const { head, page, ...rest } = route.props as { head?: SessionHead; page?: unknown };
  if (Object.keys(rest).length > 0 || typeof page !== 'number' || typeof head?.body !== 'string') return undefined;
  return { head, page };
}

/** The digest of what a later session page (laterSessionPage) reads from the session's body (kept from its render,
 * or read now); undefined when the body cannot be read. */
export function readDigest(bundle: RendererBundle, route: RouteToRender): string | undefined {
  const later = laterSessionPage(route);
  if (!later) return undefined;
  try {
    return bundle.sessionPageDigest(later.head, later.page);
  } catch {
    return undefined; // rendered (again), the page says it could not be shown
  }
}

type Container = Awaited<ReturnType<RendererBundle['experimental_AstroContainer']['create']>>;

/** Renders pages and endpoints of one bundle, the way Astro's static build writes them. */
export class PageRenderer {
  private constructor(
    private readonly bundle: RendererBundle,
    private readonly container: Container,
    /** `<link rel="stylesheet">` tags for the bundle's stylesheets, put where Astro puts them. */
    private readonly styleLinks: Buffer,
  ) {}

  static async create(bundle: RendererBundle, styleHrefs: string[]): Promise<PageRenderer> {
    bundle.spliceThreads();
    const container = await bundle.experimental_AstroContainer.create();
    const links = styleHrefs.map((href) => `<link rel="stylesheet" href="${href}">`).join('');
    return new PageRenderer(bundle, container, Buffer.from(links));
  }

  /** Renders a page or an endpoint into `file`, written only when its bytes differ (see writeIfChanged).
   * Returns whether it wrote. An endpoint's response is streamed to the disk: a session's Markdown can be
   * larger than a worker's heap. */
  async renderTo(file: string, task: RouteToRender, force = false): Promise<boolean> {
    if (!task.route.endpoint) return writeIfChanged(file, await this.render(task), force);
    const module = this.pageModule(task);
    const get = module.GET as ((context: Record<string, unknown>) => Promise<Response> | Response) | undefined;
    if (!get) throw new Error(`${task.route.file} has no GET`);
    const url = this.urlOf(task);
    const response = await get({ params: task.params, props: task.props, url, request: new Request(url) });
    return writeStreamIfChanged(file, response.body ?? new Blob([]).stream(), force);
  }

  /**
   * renderTo, but a page that cannot be rendered costs that page only: a page saying it could not be shown is
   * written in its place, and the error is handed back (in words, one line) for the build to warn about. The
   * reason stays out of the page, which may be shared: an error can quote the session.
   */
  async renderOrExplain(
    file: string,
    task: RouteToRender,
    force = false,
  ): Promise<{ written: boolean; error?: string }> {
    try {
      return { written: await this.renderTo(file, task, force) };
    } catch (error) {
      const reason =
        (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim() || 'no reason given';
      return { written: writeIfChanged(file, this.notShown(task), force), error: reason };
    }
  }

  private notShown(task: RouteToRender): Buffer {
    const text = 'This page could not be shown: the build that made it could not render it (its warnings say why).';
    if (task.route.endpoint) {
      const body = Buffer.from(task.output.endsWith('.json') ? `${JSON.stringify({ error: text })}\n` : `${text}\n`);
      return task.output.endsWith('.gz') ? gzipForSite(body) : body;
    }
    return Buffer.concat([
      Buffer.from('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Not shown</title>'),
      this.styleLinks,
      Buffer.from(`</head><body><main><h1>Not shown</h1><p>${text}</p></main></body></html>\n`),
    ]);
  }

  private pageModule(task: RouteToRender): Record<string, unknown> {
    const module = this.bundle.pageModules[task.route.file];
    if (!module) throw new Error(`no page module ${task.route.file} in the renderer`);
    return module;
  }

  private urlOf(task: RouteToRender): URL {
    return new URL(urlPathOf(task.output, this.bundle.baseUrl), 'http://localhost');
  }

  /** A page's HTML. */
  private async render(task: RouteToRender): Promise<Buffer> {
    const module = this.pageModule(task);
    const url = this.urlOf(task);
    this.bundle.takeThreadBytes(); // left by a page that failed
    // The response's bytes as Astro encoded them: its `renderToString` would decode them to a string that
    // would then be encoded again.
    const response = await this.container.renderToResponse(module.default, {
      props: task.props,
      params: task.params,
      request: new Request(url),
      partial: false,
    });
    const html = Buffer.from(await response.arrayBuffer());
    const thread = this.bundle.takeThreadBytes();
    const head = html.indexOf('</head>');
    const parts = head === -1 ? [html] : [html.subarray(0, head), this.styleLinks, html.subarray(head)];
    if (!thread) return parts.length === 1 ? html : Buffer.concat(parts);
    const last = parts.pop()!;
    const at = last.indexOf(this.bundle.THREAD_MARKER);
    if (at === -1) throw new Error('the page has no place for its thread');
    return Buffer.concat([
      ...parts,
      last.subarray(0, at),
      thread,
      last.subarray(at + this.bundle.THREAD_MARKER.length),
    ]);
  }
}

/**
 * Writes a file only when its bytes differ from what is there, through a temporary file and a rename so a
 * server never sends half a page. Returns whether it wrote. Synchronous: a render worker has nothing else to
 * do meanwhile, and each awaited call would leave it idle for a round trip through libuv's thread pool.
 */
export function writeIfChanged(file: string, bytes: Buffer, force = false): boolean {
  if (!force && !madeFolder(file) && readIfAny(file)?.equals(bytes)) return false;
  const temp = temporaryBeside(file);
  inFolder(file, () => writeFileSync(temp, bytes));
  renameSync(temp, file);
  return true;
}

/** Folders this process made or found, so that a build's thousands of files do not each ask for theirs. */
const knownFolders = new Set<string>();

/** Makes the folder of `file` unless it is known: whether it was made now (then `file` is not there: a first
 * build's thousands of pages, each in a folder of its own, do not each try to read theirs). */
function madeFolder(file: string): boolean {
  const folder = path.dirname(file);
  if (knownFolders.has(folder)) return false;
  const made = mkdirSync(folder, { recursive: true });
  knownFolders.add(folder);
  return made !== undefined;
}

/** Runs `write` (which makes a file beside `file`) once its folder is there. A folder known from an earlier
 * file is not asked for again (asking for every file cost 2 % of a first build) unless the write finds it gone
 * (a later build of `serve --watch`, after the last one removed it). */
function inFolder<T>(file: string, write: () => T): T {
  const folder = path.dirname(file);
  if (knownFolders.has(folder)) {
    try {
      return write();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  mkdirSync(folder, { recursive: true });
  knownFolders.add(folder);
  return write();
}

/**
 * writeIfChanged for a stream: the bytes go to a temporary file as they come, compared on the way with the
 * file that is there; the temporary file replaces it only when they differ. Holds one chunk at a time.
 */
export async function writeStreamIfChanged(
  file: string,
  body: ReadableStream<Uint8Array>,
  force = false,
): Promise<boolean> {
  const temp = temporaryBeside(file);
  const existing = force || madeFolder(file) ? undefined : openIfAny(file);
  let same = existing !== undefined;
  let renamed = false;
  try {
    const out = inFolder(file, () => openSync(temp, 'w'));
    try {
      let offset = 0;
      let scratch = Buffer.alloc(0);
      const reader = body.getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        const chunk = next.value;
        writeSync(out, chunk);
        if (same) {
          if (scratch.length < chunk.length) scratch = Buffer.alloc(chunk.length);
          const read = readSync(existing!, scratch, 0, chunk.length, offset);
          same = read === chunk.length && scratch.subarray(0, read).equals(chunk);
        }
        offset += chunk.length;
      }
      // …and the file there has nothing after them.
      if (same) same = readSync(existing!, Buffer.alloc(1), 0, 1, offset) === 0;
    } finally {
      closeSync(out);
    }
    if (!same) {
      renameSync(temp, file);
      renamed = true;
    }
    return renamed;
  } finally {
    if (existing !== undefined) closeSync(existing);
    if (!renamed) rmSync(temp, { force: true });
  }
}

/** A file not there is asked about first: a failed open throws an error (thousands in a first build, one for each
 * session's Markdown), ~3 times the cost of a stat that says so. */
function openIfAny(file: string): number | undefined {
  if (!statSync(file, { throwIfNoEntry: false })) return undefined;
  try {
    return openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function readIfAny(file: string): Buffer | undefined {
  if (!statSync(file, { throwIfNoEntry: false })) return undefined;
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
