import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type RouteFile, urlPathOf } from './routes.ts';

/** The compiled renderer bundle (see renderer-entry.ts). */
export interface RendererBundle {
  experimental_AstroContainer: {
    create(options?: unknown): Promise<{
      renderToString(component: unknown, options: Record<string, unknown>): Promise<string>;
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
    private readonly styleLinks: string,
  ) {}

  static async create(bundle: RendererBundle, styleHrefs: string[]): Promise<PageRenderer> {
    const container = await bundle.experimental_AstroContainer.create();
    const links = styleHrefs.map((href) => `<link rel="stylesheet" href="${href}">`).join('');
    return new PageRenderer(bundle, container, links);
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
    const html = await this.container.renderToString(module.default, {
      props: task.props,
      params: task.params,
      request: new Request(url),
      partial: false,
    });
    const head = html.indexOf('</head>');
    return Buffer.from(head === -1 ? html : `${html.slice(0, head)}${this.styleLinks}${html.slice(head)}`);
  }
}

/**
 * Writes a file only when its bytes differ from what is there, through a temporary file and a rename so a
 * server never sends half a page. Returns whether it wrote.
 */
export async function writeIfChanged(file: string, bytes: Buffer, force = false): Promise<boolean> {
  if (!force) {
    const existing = await fs.readFile(file).catch(() => undefined);
    if (existing?.equals(bytes)) return false;
  }
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  await fs.writeFile(temp, bytes);
  await fs.rename(temp, file);
  return true;
}
