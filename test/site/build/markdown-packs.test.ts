import { promises as fs } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { fixtureBuild, SESSION } from '../../helpers/paths.ts';
import { packMember, sessionMarkdownMember } from '../../helpers/markdown-packs.ts';
import { appendPrompt } from '../../helpers/transcripts.ts';
import { launchChromium, startPreview } from '../../helpers/browser.ts';

type PackIndex = Record<string, [number, number, number, number]>;

let paths: { home: string; data: string; out: string };
const build = (...more: string[]) =>
  runCli(['build', '--home', paths.home, '--data', paths.data, '--out', paths.out, '--tz', 'Asia/Tokyo', ...more]);

async function packs(): Promise<Map<string, { index: PackIndex; pack: Buffer; mtimeMs: number }>> {
  const days = path.join(paths.out, 'days');
  const found = new Map<string, { index: PackIndex; pack: Buffer; mtimeMs: number }>();
  for (const file of (await fs.readdir(days)).filter((f) => f.endsWith('.sessions.json')).sort()) {
    const packFile = path.join(days, file.replace(/\.json$/, '.md.gz'));
    found.set(file.slice(0, 10), {
      index: JSON.parse(await fs.readFile(path.join(days, file), 'utf8')) as PackIndex,
      pack: await fs.readFile(packFile),
      mtimeMs: (await fs.stat(packFile)).mtimeMs,
    });
  }
  return found;
}

/** The session pages' Markdown links: the index each names and the member it asks it for. */
async function pageLinks(): Promise<{ page: string; index: string; member: string; href: string }[]> {
  const links = [];
  const sessions = path.join(paths.out, 'sessions');
  for (const file of await fs.readdir(sessions, { recursive: true })) {
    if (!file.endsWith('index.html')) continue;
    const html = await fs.readFile(path.join(sessions, file), 'utf8');
    const link =
      /<a href="([^"]+)" download data-markdown-file="[^"]+" data-markdown-index="([^"]+)" data-markdown-member="([^"]+)"/.exec(
        html,
      );
    expect(link, file).not.toBeNull();
    links.push({ page: file, href: link![1]!, index: link![2]!, member: link![3]! });
  }
  return links;
}

beforeAll(async () => {
  paths = await fixtureBuild('markdown-packs');
  const first = await build();
  expect(first.code, first.stderr).toBe(0);
}, 600_000);

describe("sessions' Markdown, packed by the day each started", { timeout: 600_000 }, () => {
  it('a pack is its members one after another, and its index finds each in the pack and in its Markdown', async () => {
    const all = await packs();
    expect(all.size).toBeGreaterThan(3);
    let members = 0;
    for (const [day, { index, pack }] of all) {
      const entries = Object.entries(index).sort((a, b) => a[1][0] - b[1][0]);
      expect(entries.length, day).toBeGreaterThan(0);
      // Back to back from the pack's first byte to its last, and their Markdown likewise.
      expect(Buffer.concat(entries.map(([, at]) => pack.subarray(at[0], at[0] + at[1]))).equals(pack), day).toBe(true);
      const markdown = gunzipSync(pack);
      let at = 0;
      let markdownAt = 0;
      for (const [name, [start, length, markdownStart, markdownLength]] of entries) {
        expect([start, markdownStart], name).toEqual([at, markdownAt]);
        const own = gunzipSync(pack.subarray(start, start + length));
        expect(own.toString('utf8'), name).toMatch(/^# /);
        // What a host that decodes .gz files hands over, cut where the index says.
        expect(markdown.subarray(markdownStart, markdownStart + markdownLength).equals(own), name).toBe(true);
        at += length;
        markdownAt += markdownLength;
        members += 1;
      }
      expect(markdownAt, day).toBe(markdown.length);
    }
    // Every session page links its day's pack and the index that holds it; no session has a file of its own.
    const links = await pageLinks();
    const sessions = new Set(links.filter((l) => !l.page.includes('/page/')).map((l) => l.member));
    expect(members).toBe(sessions.size);
    for (const link of links) {
      const day = /\/days\/(\d{4}-\d{2}-\d{2})\.sessions\.json$/.exec(link.index)?.[1];
      expect(day, link.page).toBeDefined();
      expect(link.href).toBe(`/days/${day}.sessions.md.gz`);
      expect(all.get(day!)!.index[link.member], link.page).toBeDefined();
    }
    const sessionFiles = await fs.readdir(path.join(paths.out, 'sessions'), { recursive: true });
    expect(sessionFiles.filter((f) => f.endsWith('.gz'))).toEqual([]);
  });

  it("a session that grew makes again its day's pack only; a day left out by --since loses its pack", async () => {
    const before = await packs();
    const transcript = path.join(paths.home, '.claude', 'projects', '-home-alice-work-webapp', `${SESSION.B}.jsonl`);
    await appendPrompt(transcript, 'PACKED-MARKER: 追記しました', '2026-03-03T00:25:00.000Z');
    const grown = await build();
    expect(grown.code, grown.stderr).toBe(0);
    const after = await packs();
    const dayOfB = [...after].find(([, p]) => p.index[`claude-code/${SESSION.B}`])![0];
    const markdownOfB = gunzipSync(await sessionMarkdownMember(paths.out, 'claude-code', SESSION.B)).toString('utf8');
    expect(markdownOfB).toContain('PACKED-MARKER: 追記しました');
    expect(after.get(dayOfB)!.pack.equals(before.get(dayOfB)!.pack)).toBe(false);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [day, pack] of after) {
      if (day === dayOfB) continue;
      expect(pack.pack.equals(before.get(day)!.pack), day).toBe(true);
      expect(pack.mtimeMs, day).toBe(before.get(day)!.mtimeMs);
    }

    // Only the days from the last one on: the other packs, and their members in the data directory, are gone.
    const last = [...after.keys()].at(-1)!;
    const since = await build('--since', last);
    expect(since.code, since.stderr).toBe(0);
    const left = await packs();
    expect([...left.keys()]).toEqual([last]);
    const members = (await fs.readdir(path.join(paths.data, 'cache', 'site-build'), { recursive: true })).filter((f) =>
      f.endsWith('.md.gz'),
    );
    expect(members).toHaveLength(Object.keys(left.get(last)!.index).length);
  });

  it('another --tz moves a session to the pack of the day it started there, and its page links that pack', async () => {
    const dayOf = async () => {
      const days = new Map<string, string>();
      for (const [day, { index }] of await packs()) for (const name of Object.keys(index)) days.set(name, day);
      return days;
    };
    const tokyo = await build();
    expect(tokyo.code, tokyo.stderr).toBe(0);
    const before = await dayOf();
    const pacific = await build('--tz', 'America/Los_Angeles');
    expect(pacific.code, pacific.stderr).toBe(0);
    const after = await dayOf();
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    expect([...after].filter(([name, day]) => before.get(name) !== day).length).toBeGreaterThan(0);
    for (const link of await pageLinks()) expect(link.index, link.page).toContain(`/days/${after.get(link.member)}.`);
    // Back to the zone the other tests build in.
    expect((await build()).code).toBe(0);
  });

  it('cuts a busy day into parts below a size, and the page saves a member of a later part', async () => {
    const limit = 1_000;
    const parted = await fixtureBuild('markdown-pack-parts');
    // Read by the build's own thread (runCli runs the CLI in this process), as AGENT_LOGBOOK_SEARCH_SHARD_CHARS is.
    process.env.AGENT_LOGBOOK_PACK_PART_BYTES = String(limit);
    const built = await runCli(['build', '--home', parted.home, '--data', parted.data, '--out', parted.out]).finally(
      () => delete process.env.AGENT_LOGBOOK_PACK_PART_BYTES,
    );
    expect(built.code, built.stderr).toBe(0);
    const days = path.join(parted.out, 'days');
    const names = await fs.readdir(days);
    const later = names.filter((n) => /\.sessions\.\d+\.md\.gz$/.test(n));
    expect(later.length).toBeGreaterThan(0);
    let inLater: string | undefined;
    for (const file of names.filter((n) => n.endsWith('.sessions.json'))) {
      const index = JSON.parse(await fs.readFile(path.join(days, file), 'utf8')) as Record<string, number[]>;
      const byPart = new Map<number, number[][]>();
      for (const [name, at] of Object.entries(index)) {
        const part = at[4] ?? 1;
        byPart.set(part, [...(byPart.get(part) ?? []), at]);
        if (part > 1) inLater ??= name;
        // Each member whole where its index says, in its own part.
        const member = await packMember(parted.out, name);
        expect(gunzipSync(member).toString('utf8'), name).toMatch(/^# /);
      }
      for (const [part, members] of byPart) {
        const bytes = await fs.stat(path.join(days, file.replace(/\.json$/, part === 1 ? '.md.gz' : `.${part}.md.gz`)));
        // Under the size, unless a member alone is bigger.
        if (members.length > 1) expect(bytes.size, `${file} part ${part}`).toBeLessThanOrEqual(limit);
        expect(bytes.size).toBe(members.reduce((sum, at) => sum + at[1]!, 0));
      }
    }
    expect(inLater).toBeDefined();
    // Saved from its page in Chromium: the script finds the part in the index.
    const [source, segment] = inLater!.split('/') as [string, string];
    const preview = await startPreview(parted.out);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${preview.url}/sessions/${source}/${segment}/`);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'This session as Markdown' }).click(),
      ]);
      const saved = await fs.readFile((await download.path())!, 'utf8');
      expect(saved).toBe(gunzipSync(await packMember(parted.out, inLater!)).toString('utf8'));
    } finally {
      await browser.close();
      await preview.stop();
    }

    // Parts of the usual size: each day is one part again, and the later parts the last build wrote are gone.
    const whole = await runCli(['build', '--home', parted.home, '--data', parted.data, '--out', parted.out]);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stderr).toMatch(new RegExp(`\\b${later.length} removed\\b`));
    const after = await fs.readdir(days);
    expect(after.filter((n) => /\.sessions\.\d+\.md\.gz$/.test(n))).toEqual([]);
    expect(after.filter((n) => n.endsWith('.sessions.md.gz')).sort()).toEqual(
      names.filter((n) => n.endsWith('.sessions.md.gz')).sort(),
    );
    for (const file of after.filter((n) => n.endsWith('.sessions.json'))) {
      const index = JSON.parse(await fs.readFile(path.join(days, file), 'utf8')) as Record<string, number[]>;
      for (const [name, at] of Object.entries(index)) {
        expect(at, name).toHaveLength(4);
        expect(gunzipSync(await packMember(parted.out, name)).toString('utf8'), name).toMatch(/^# /);
      }
    }
  });

  it("upgrades a site that has each session's Markdown beside its page: those files are removed", async () => {
    // What a build before packs left: `sessions/<source>/<id>.md.gz` in the site, in its record without `packed`.
    const folder = path.join(paths.data, 'cache', 'site-build');
    const recordFile = (await fs.readdir(folder)).find((n) => /^[0-9a-f]{16}\.json$/.test(n))!;
    const record = JSON.parse(await fs.readFile(path.join(folder, recordFile), 'utf8'));
    expect(record.packed).toBe(true);
    delete record.packed;
    const old = Object.keys(record.outputs).filter((o: string) => /^sessions\/[^/]+\/[^/]+\.md\.gz$/.test(o));
    expect(old.length).toBeGreaterThan(0);
    for (const output of old) {
      const file = path.join(paths.out, output);
      await fs.writeFile(file, await packMember(paths.out, output.slice('sessions/'.length, -'.md.gz'.length)));
      const stat = await fs.stat(file);
      record.outputs[output] = { ...record.outputs[output], size: stat.size, mtimeMs: stat.mtimeMs };
    }
    await fs.writeFile(path.join(folder, recordFile), JSON.stringify(record));
    const upgraded = await build();
    expect(upgraded.code, upgraded.stderr).toBe(0);
    expect(upgraded.stderr).toMatch(new RegExp(`\\b${old.length} removed\\b`));
    const left = (await fs.readdir(path.join(paths.out, 'sessions'), { recursive: true })).filter((f) =>
      f.endsWith('.gz'),
    );
    expect(left).toEqual([]);
    expect(JSON.parse(await fs.readFile(path.join(folder, recordFile), 'utf8')).packed).toBe(true);
  });
});
