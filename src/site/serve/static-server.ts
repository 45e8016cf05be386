import { createReadStream, promises as fs } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SEARCH_INDEX_CHANGED } from '../client/live-events.ts';
import { SITE_CSP } from '../csp.ts';

/** The policy a page sends when it has no `<meta>` policy of its own (and for files that are not pages). */
const FALLBACK_CSP = SITE_CSP;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.gz': 'application/gzip',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml; charset=utf-8',
  '.ico': 'image/x-icon',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.pf_meta': 'application/octet-stream',
};

/** Where the watch server's own files live: no page of the site has this name. */
export const LIVE_PREFIX = '/__agent-logbook/';

export interface StaticServerOptions {
  root: string;
  port: number;
  host?: string;
  /** Live mode: serve the reload script and its event stream, and add the script to every HTML response. */
  live?: boolean;
  /** The site's base path (`--site-url https://host/logbook/`): its pages are served under it. */
  base?: string;
}

export interface StaticServer {
  url: string;
  port: number;
  /** Tells every open page to reload (live mode). */
  reload(): void;
  /** Tells every open page that the site search's index was written again (live mode): its search box drops
   * the index it loaded and loads the new one on its next query, without reloading the page. */
  searchChanged(): void;
  close(): Promise<void>;
}

/**
 * A static file server for a built site, on 127.0.0.1 unless told otherwise. Every response carries the
 * site's Content-Security-Policy as a header (the one in the page's `<meta>`, so the two never disagree),
 * `X-Content-Type-Options: nosniff` and, for text, `charset=utf-8`. Only files under the site root are
 * served: the decoded path is resolved and checked against the root, and so is its real path (a symlink
 * out of the site is refused).
 */
export async function startStaticServer(options: StaticServerOptions): Promise<StaticServer> {
  const root = await fs.realpath(path.resolve(options.root));
  const state: LiveState = { clients: new Set(), searchVersion: 0 };
  const base = basePath(options.base);
  const server = http.createServer((request, response) => {
    void handle(root, base, request, response, options.live === true && state).catch(() => {
      if (!response.headersSent) send(response, 500, 'text/plain; charset=utf-8', 'Internal error\n');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/`,
    port,
    reload() {
      for (const client of state.clients) client.write('data: reload\n\n');
    },
    searchChanged() {
      state.searchVersion += 1;
      for (const client of state.clients) client.write(`data: search ${state.searchVersion}\n\n`);
    },
    async close() {
      for (const client of state.clients) client.end();
      state.clients.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function handle(
  root: string,
  base: string,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  /** The live server's state, or false when the server is not live. */
  live: LiveState | false,
): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Allow', 'GET, HEAD');
    return send(response, 405, 'text/plain; charset=utf-8', 'Method not allowed\n');
  }
  // `//days` would be a protocol-relative URL in a Location header (another host): one leading slash only.
  let rawPath = (request.url ?? '/').split(/[?#]/, 1)[0]!.replace(/^\/+/, '/');
  if (base !== '/' && !rawPath.startsWith(LIVE_PREFIX)) {
    // Pages link to `<base>…`: strip it; anything outside it goes to the base (the live endpoints stay at the root).
    if (!rawPath.startsWith(base)) return redirect(response, 302, base);
    rawPath = rawPath.slice(base.length - 1).replace(/^\/+/, '/');
  }
  let urlPath: string;
  try {
    urlPath = decodeURIComponent(rawPath);
  } catch {
    return send(response, 400, 'text/plain; charset=utf-8', 'Bad request\n');
  }
  if (!urlPath.startsWith('/') || urlPath.includes('\0') || urlPath.includes('\\')) {
    return send(response, 400, 'text/plain; charset=utf-8', 'Bad request\n');
  }
  if (live && urlPath === `${LIVE_PREFIX}reload.js`) {
    return send(response, 200, 'text/javascript; charset=utf-8', RELOAD_SCRIPT, request.method === 'HEAD');
  }
  if (live && urlPath === `${LIVE_PREFIX}events`) {
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Security-Policy': FALLBACK_CSP,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
    });
    // Which writing of the search index this is: a page that reloaded before the word of the last one reached it
    // (it was sent while the page reconnected) learns of it here.
    response.write(`: connected\n\ndata: index ${live.searchVersion}\n\n`);
    live.clients.add(response);
    request.on('close', () => live.clients.delete(response));
    return;
  }
  // Any `..` segment is refused outright, before and after decoding, rather than resolved.
  if (urlPath.split('/').includes('..') || rawPath.split('/').includes('..')) {
    return send(response, 400, 'text/plain; charset=utf-8', 'Bad request\n');
  }
  const file = await findFile(root, urlPath);
  if (file === 'redirect') {
    return redirect(response, 301, `${base}${rawPath.slice(1)}/`);
  }
  if (!file) {
    const notFound = await findFile(root, '/404.html');
    if (notFound && notFound !== 'redirect') return sendFile(response, request, notFound, 404, live);
    return send(response, 404, 'text/plain; charset=utf-8', 'Not found\n');
  }
  return sendFile(response, request, file, 200, live);
}

/** The base as a path `/…/` (one leading slash, one trailing), so every Location built on it stays on this host. */
function basePath(base: string | undefined): string {
  return `/${(base ?? '/').replace(/^\/+|\/+$/g, '')}/`.replace(/^\/\/$/, '/');
}

/** A redirect to a path of this server: `location` always starts with exactly one slash. */
function redirect(response: http.ServerResponse, status: 301 | 302, location: string): void {
  response.writeHead(status, { ...SECURITY_HEADERS, Location: location.replace(/^\/+/, '/') });
  response.end();
}

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/** The file a URL path names inside `root`: a file, a directory's index.html, or a redirect to add the slash. */
async function findFile(root: string, urlPath: string): Promise<string | 'redirect' | undefined> {
  const candidate = path.resolve(root, `.${urlPath}`);
  if (!inside(root, candidate)) return undefined;
  const stat = await fs.stat(candidate).catch(() => undefined);
  if (!stat) return undefined;
  let file = candidate;
  if (stat.isDirectory()) {
    if (!urlPath.endsWith('/')) return 'redirect';
    file = path.join(candidate, 'index.html');
    const index = await fs.stat(file).catch(() => undefined);
    if (!index?.isFile()) return undefined;
  } else if (!stat.isFile()) {
    return undefined;
  }
  const real = await fs.realpath(file).catch(() => undefined);
  return real && inside(root, real) ? real : undefined;
}

function inside(root: string, file: string): boolean {
  return file === root || file.startsWith(`${root}${path.sep}`);
}

async function sendFile(
  response: http.ServerResponse,
  request: http.IncomingMessage,
  file: string,
  status: number,
  live: LiveState | false,
): Promise<void> {
  const type = TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  const head = request.method === 'HEAD';
  if (type.startsWith('text/html')) {
    let html = await fs.readFile(file, 'utf8');
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/i.exec(html)?.[1];
    if (live) html = injectReload(html, live.searchVersion);
    response.writeHead(status, {
      ...SECURITY_HEADERS,
      'Content-Security-Policy': csp ? unescapeAttribute(csp) : FALLBACK_CSP,
      'Content-Type': type,
      'Content-Length': Buffer.byteLength(html),
      'Cache-Control': 'no-cache',
    });
    return void response.end(head ? undefined : html);
  }
  const stat = await fs.stat(file);
  // One byte range, as static hosts answer it: a session's Markdown is asked for alone out of its day's pack.
  const range = status === 200 ? byteRange(request.headers.range, stat.size) : undefined;
  if (range === 'unsatisfiable') {
    response.writeHead(416, { ...SECURITY_HEADERS, 'Content-Range': `bytes */${stat.size}` });
    return void response.end();
  }
  response.writeHead(range ? 206 : status, {
    ...SECURITY_HEADERS,
    'Content-Security-Policy': FALLBACK_CSP,
    'Content-Type': type,
    'Content-Length': range ? range.end - range.start + 1 : stat.size,
    'Accept-Ranges': 'bytes',
    ...(range && { 'Content-Range': `bytes ${range.start}-${range.end}/${stat.size}` }),
    'Cache-Control': 'no-cache',
  });
  if (head) return void response.end();
  await new Promise<void>((resolve, reject) => {
    createReadStream(file, range).on('error', reject).pipe(response).on('finish', resolve).on('error', reject);
  });
}

/** A `Range: bytes=a-b` (or `a-`, or `-n`) header's bytes; several ranges, or none, are answered whole. */
function byteRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = header && /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '') || size === 0) return undefined;
  // `bytes=5-3` is no range (RFC 9110 14.1.1): the whole file.
  if (match[1] !== '' && match[2] !== '' && Number(match[2]) < Number(match[1])) return undefined;
  const [start, end] =
    match[1] === ''
      ? [Math.max(0, size - Number(match[2])), size - 1]
      : [Number(match[1]), match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)];
  return start > end || start >= size ? 'unsatisfiable' : { start, end };
}

function send(response: http.ServerResponse, status: number, type: string, body: string, head = false): void {
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Security-Policy': FALLBACK_CSP,
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  response.end(head ? undefined : body);
}

function unescapeAttribute(value: string): string {
  return value
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

/** The live-mode script: an external file, so the site's `script-src 'self'` allows it. It carries the number of the
 * search index this page was served with, which the page compares with the one the server gives on connecting. */
function injectReload(html: string, searchVersion: number): string {
  const tag = `<script src="${LIVE_PREFIX}reload.js" data-search-index="${searchVersion}" defer></script>`;
  const at = html.lastIndexOf('</body>');
  return at === -1 ? `${html}${tag}` : `${html.slice(0, at)}${tag}${html.slice(at)}`;
}

/** The live server's state: its event streams, and how many times the search index was written again. */
interface LiveState {
  clients: Set<http.ServerResponse>;
  searchVersion: number;
}

/** `search N` comes when the index was written again; `index N` on connecting, with the number of the last one. The
 * page knows the number it was served with: a page served before the index was written again, whose stream connected
 * only after the word was sent (it follows the reload within milliseconds when a few pages were indexed), hears of it
 * on connecting. A page brought back from the back/forward cache may be older than the site: it loads again. */
const RELOAD_SCRIPT = `// agent-logbook serve --watch: reloads this page when the site is rebuilt, and tells its search box when
// the search index was written again.
(() => {
  let searchIndex = document.currentScript?.dataset.searchIndex;
  const events = new EventSource('${LIVE_PREFIX}events');
  events.onmessage = (event) => {
    const [kind, version] = event.data.split(' ');
    if (kind === 'reload') return location.reload();
    if (kind !== 'search' && kind !== 'index') return;
    const known = searchIndex;
    searchIndex = version;
    if (kind === 'search' || (known !== undefined && known !== version)) {
      window.dispatchEvent(new Event('${SEARCH_INDEX_CHANGED}'));
    }
  };
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) location.reload();
  });
})();
`;
