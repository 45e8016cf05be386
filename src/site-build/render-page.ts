import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type RouteFile, urlPathOf } from './routes.ts';

/** The compiled renderer bundle (see renderer-entry.ts). */
export interface RendererBundle {
  experimental_AstroContainer: {
    create(options?: unknown): Promise<{
      renderToResponse(component: unknown, options: Record<string, unknown>): Promise<Response>;
    }>;
  };
  pageModules: Record<string, Record<string, unknown>>;
  baseUrl: string;
}

export async function loadBundle(entry: string): Promise<RendererBundle> {
  return (await import(pathToFileURL(entry).href)) as RendererBundle;
}

export interface RouteToRender {
  route: RouteFile;
  params: Record<string, string | undefined>;
  props: Record<string, unknown>;
  output: string;
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
    const container = await bundle.experimental_AstroContainer.create();
    const links = styleHrefs.map((href) => `<link rel="stylesheet" href="${href}">`).join('');
    return new PageRenderer(bundle, container, Buffer.from(links));
  }

  async render(task: RouteToRender): Promise<Buffer> {
    const module = this.bundle.pageModules[task.route.file];
    if (!module) throw new Error(`no page module ${task.route.file} in the renderer`);
    const url = new URL(urlPathOf(task.output, this.bundle.baseUrl), 'http://localhost');
    if (task.route.endpoint) {
      const get = module.GET as ((context: Record<string, unknown>) => Promise<Response> | Response) | undefined;
      if (!get) throw new Error(`${task.route.file} has no GET`);
      const response = await get({ params: task.params, props: task.props, url, request: new Request(url) });
      return Buffer.from(await response.arrayBuffer());
    }
    // The response's bytes as Astro encoded them: its `renderToString` would decode them to a string that
    // would then be encoded again.
    const response = await this.container.renderToResponse(module.default, {
      props: task.props,
      params: task.params,
      request: new Request(url),
      partial: false,
    });
    const html = Buffer.from(await response.arrayBuffer());
    const head = html.indexOf('</head>');
    return head === -1 ? html : Buffer.concat([html.subarray(0, head), this.styleLinks, html.subarray(head)]);
  }
}

/**
 * Writes a file only when its bytes differ from what is there, through a temporary file and a rename so a
 * server never sends half a page. Returns whether it wrote. Synchronous: a render worker has nothing else to
 * do meanwhile, and each awaited call would leave it idle for a round trip through libuv's thread pool.
 */
export function writeIfChanged(file: string, bytes: Buffer, force = false): boolean {
  if (!force && readIfAny(file)?.equals(bytes)) return false;
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(temp, bytes);
  renameSync(temp, file);
  return true;
}

function readIfAny(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
