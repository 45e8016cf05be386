import { promises as fs } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStaticServer, type StaticServer } from '../../../src/site/serve/static-server.ts';
import { tempDir } from '../../helpers/paths.ts';

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'";

/** Sends a request line exactly as written (no client normalizes the path) and returns the raw response. */
function rawRequest(port: number, target: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', ...rest] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: rest.join('\r\n\r\n') });
    });
  });
}

function locationOf(headers: string): string | undefined {
  return /^location: (.*)$/m.exec(headers)?.[1]?.trim();
}

let root: string;
let outside: string;
let server: StaticServer;

beforeAll(async () => {
  const dir = await tempDir('serve');
  root = path.join(dir, 'site');
  outside = path.join(dir, 'secret.txt');
  await fs.mkdir(path.join(root, 'days'), { recursive: true });
  await fs.writeFile(outside, 'TOP-SECRET outside the site');
  await fs.writeFile(
    path.join(root, 'index.html'),
    `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="${CSP}"></head><body>home</body></html>`,
  );
  await fs.writeFile(path.join(root, 'days', '2026-03-02.md'), '# 2026-03-02\n\n日本語のレポート\n');
  await fs.writeFile(path.join(root, 'stats.json'), '{"ok":true}\n');
  await fs.symlink(outside, path.join(root, 'link.txt'));
  server = await startStaticServer({ root, port: 0 });
});

afterAll(async () => {
  await server?.close();
});

describe('serve', () => {
  it('listens on 127.0.0.1 only', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it("sends the page's CSP as a header, nosniff, and charset=utf-8 for text", async () => {
    const home = await fetch(server.url);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-security-policy')).toBe(CSP);
    expect(home.headers.get('x-content-type-options')).toBe('nosniff');
    expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await home.text()).toContain('home');

    const md = await fetch(`${server.url}days/2026-03-02.md`);
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(md.headers.get('x-content-type-options')).toBe('nosniff');
    expect(md.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await md.text()).toContain('日本語のレポート');

    const json = await fetch(`${server.url}stats.json`);
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('redirects a directory to its slash and answers 404 for what is not there', async () => {
    const dir = await rawRequest(server.port, '/days');
    expect(dir.status).toBe(301);
    expect(dir.headers).toContain('location: /days/');
    expect((await rawRequest(server.port, '/nope/')).status).toBe(404);
  });

  it.each([
    ['//days', '/days/'],
    ['///days', '/days/'],
    ['//days?x=1', '/days/'],
  ])('redirects %s to a path on this host, never to another host', async (target, location) => {
    const response = await rawRequest(server.port, target);
    expect(response.status).toBe(301);
    expect(locationOf(response.headers)).toBe(location);
  });

  it.each([
    '/../../etc/passwd',
    '/..%2f..%2fetc%2fpasswd',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/%2E%2E/secret.txt',
    '/days/../../secret.txt',
    '/days/%2e%2e/%2e%2e/secret.txt',
    '/..\\secret.txt',
    '/%5c..%5csecret.txt',
    '/%00/etc/passwd',
    '/link.txt',
    `/${'../'.repeat(20)}etc/passwd`,
  ])('never serves anything outside the site root: %s', async (target) => {
    const response = await rawRequest(server.port, target);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.body).not.toContain('TOP-SECRET');
    expect(response.body).not.toContain('root:');
    expect(response.headers).toContain('x-content-type-options: nosniff');
  });

  it('answers one byte range as static hosts do (a session is asked for alone out of its day pack)', async () => {
    const url = `${server.url}stats.json`;
    const whole = '{"ok":true}\n';
    const ranged = async (range: string) => {
      const response = await fetch(url, { headers: { Range: range } });
      return { status: response.status, range: response.headers.get('content-range'), body: await response.text() };
    };
    expect(await ranged('bytes=1-4')).toEqual({ status: 206, range: 'bytes 1-4/12', body: whole.slice(1, 5) });
    expect(await ranged('bytes=6-')).toEqual({ status: 206, range: 'bytes 6-11/12', body: whole.slice(6) });
    expect(await ranged('bytes=-3')).toEqual({ status: 206, range: 'bytes 9-11/12', body: whole.slice(-3) });
    expect(await ranged('bytes=8-100')).toEqual({ status: 206, range: 'bytes 8-11/12', body: whole.slice(8) });
    expect((await ranged('bytes=12-20')).status).toBe(416);
    expect((await ranged('bytes=-0')).status).toBe(416);
    // Several ranges, or a header that is not one, get the whole file.
    expect(await ranged('bytes=0-1,4-5')).toEqual({ status: 200, range: null, body: whole });
    expect(await ranged('lines=1-2')).toEqual({ status: 200, range: null, body: whole });
    expect(await ranged('bytes=5-3')).toEqual({ status: 200, range: null, body: whole });
    const head = await fetch(url, { method: 'HEAD', headers: { Range: 'bytes=1-4' } });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([206, '4', '']);
    const plain = await fetch(url);
    expect(plain.headers.get('accept-ranges')).toBe('bytes');
  });

  it('refuses methods other than GET and HEAD', async () => {
    const response = await fetch(server.url, { method: 'POST', body: 'x' });
    expect(response.status).toBe(405);
  });

  it('serves a site built for a base path under that path', async () => {
    const based = await startStaticServer({ root, port: 0, base: '/logbook/' });
    try {
      const md = await fetch(`${based.url}logbook/days/2026-03-02.md`);
      expect(md.status).toBe(200);
      expect(await md.text()).toContain('日本語のレポート');
      const outside = await rawRequest(based.port, '/days/2026-03-02.md');
      expect(outside.status).toBe(302);
      expect(outside.headers).toContain('location: /logbook/');
      expect((await rawRequest(based.port, '/logbook/../secret.txt')).status).toBe(400);
      const home = await rawRequest(based.port, '/');
      expect(home.status).toBe(302);
      expect(home.headers).toContain('location: /logbook/');
      expect(await (await fetch(`${based.url}logbook/`)).text()).toContain('home');
      // A directory under the base keeps the base in its redirect, and `//` never leaves the host.
      for (const target of ['/logbook/days', '/logbook//days']) {
        const dir = await rawRequest(based.port, target);
        expect(dir.status).toBe(301);
        expect(locationOf(dir.headers)).toBe('/logbook/days/');
      }
      const outsideDouble = await rawRequest(based.port, '//evil.example/logbook/');
      expect(locationOf(outsideDouble.headers)).toBe('/logbook/');
    } finally {
      await based.close();
    }
  });

  it('adds the reload script only in live mode', async () => {
    const live = await startStaticServer({ root, port: 0, live: true });
    try {
      const html = await (await fetch(live.url)).text();
      expect(html).toContain('<script src="/__agent-logbook/reload.js" data-search-index="0" defer></script></body>');
      const script = await fetch(`${live.url}__agent-logbook/reload.js`);
      expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(await script.text()).toContain('EventSource');
    } finally {
      await live.close();
    }
    expect(await fs.readFile(path.join(root, 'index.html'), 'utf8')).not.toContain('__agent-logbook');
  });

  it('numbers the writings of the search index, and gives the last number to every page that connects', async () => {
    const live = await startStaticServer({ root, port: 0, live: true });
    const streams: AbortController[] = [];
    /** Connects to the event stream; returns what it has been told so far, word by word. */
    const connect = async () => {
      const stop = new AbortController();
      streams.push(stop);
      const response = await fetch(`${live.url}__agent-logbook/events`, { signal: stop.signal });
      let text = '';
      void (async () => {
        const reader = response.body!.getReader();
        const decoder = new TextDecoder();
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          text += decoder.decode(next.value, { stream: true });
        }
      })().catch(() => undefined);
      return () => [...text.matchAll(/^data: (.+)$/gm)].map((m) => m[1]!);
    };
    try {
      const first = await connect();
      await expect.poll(first).toEqual(['index 0']);
      live.searchChanged();
      live.reload();
      live.searchChanged();
      await expect.poll(first).toEqual(['index 0', 'search 1', 'reload', 'search 2']);
      const later = await connect();
      await expect.poll(later).toEqual(['index 2']);
      // A page carries the number of the index it was served with, to compare with the one it is given on connecting.
      const page = await (await fetch(live.url)).text();
      expect(page).toContain('<script src="/__agent-logbook/reload.js" data-search-index="2" defer></script>');
    } finally {
      for (const stream of streams) stream.abort();
      await live.close();
    }
  });
});
