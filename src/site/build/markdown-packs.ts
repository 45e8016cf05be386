import { createHash } from 'node:crypto';
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SessionSummary } from '../../model/session.ts';
import {
  markdownMemberName,
  markdownMemberRoute,
  markdownPackIndexRoute,
  markdownPackRoute,
} from '../../model/routes.ts';
import { markdownPackDay } from '../format.ts';
import { intact, type OutputRecord } from './manifest.ts';
import { writeIfChanged } from './render-page.ts';

/**
 * Sessions' Markdown exports are packed by the day each session started: `days/<day>.sessions.md.gz` holds the
 * gzip member of each, one after another (gunzip makes of it the day's sessions as one Markdown file), and
 * `days/<day>.sessions.json` says where each session's member is. A file per session was 40 % of a site's files,
 * and static hosts limit the count (Cloudflare Pages: 20,000): packed, a heavy history of 10,000 sessions fits.
 * The session page's script takes its member out of the pack (public/session.js).
 *
 * Each member is rendered like a page (key, workers, incremental) but written in the data directory, under
 * `membersDir`: a pack is made again from them only when one of its members, or their list, changed.
 */

/** A session export's route output (`sessions/<source>/<id>.md.gz`): rendered to `membersDir`, not the site. */
export function isMarkdownMember(output: string): boolean {
  return /^sessions\/[^/]+\/[^/]+\.md\.gz$/.test(output);
}

/** Where an output's file is: a session's Markdown member in `membersDir`, any other in the site. */
export function outputFile(dirs: { outDir: string; membersDir: string }, output: string): string {
  return path.join(isMarkdownMember(output) ? dirs.membersDir : dirs.outDir, output);
}

export interface PackMember {
  /** The member's route output. */
  output: string;
  /** Its name in the pack's index: `<source>/<id segment>`. */
  name: string;
  day: string;
  startedAt: string;
}

/** The members of the sessions whose Markdown the site has, each with the day (in `timeZone`) it is packed in. */
export function packMembers(summaries: Iterable<SessionSummary>, timeZone: string): PackMember[] {
  return [...summaries].map((summary) => {
    const output = markdownMemberRoute(summary.source, summary.sessionId);
    return {
      output,
      name: markdownMemberName(summary.source, summary.sessionId),
      day: markdownPackDay(summary.startedAt, timeZone),
      startedAt: summary.startedAt,
    };
  });
}

export interface PackResult {
  /** The packs and their indexes, as the manifest records them. */
  records: Record<string, OutputRecord>;
  written: number;
}

/** A day's pack is cut into parts of at most this many bytes (one member bigger than that is a part alone):
 * Cloudflare Pages refuses a file over 25 MiB. `AGENT_LOGBOOK_PACK_PART_BYTES` sets another (for tests). */
export function packPartBytes(): number {
  return Number(process.env.AGENT_LOGBOOK_PACK_PART_BYTES) || 20 * 1024 * 1024;
}

/**
 * Writes each day's pack and index whose members changed (all of them when `previous` is not given, or `full`),
 * from the member files `memberFile` finds. A pack's key is its members' records (key, size, mtime), so a member
 * rendered again to the same bytes leaves its pack alone.
 */
export function writeMarkdownPacks(options: {
  members: readonly PackMember[];
  memberRecords: Readonly<Record<string, OutputRecord>>;
  memberFile: (output: string) => string;
  outDir: string;
  previous?: Readonly<Record<string, OutputRecord>>;
  full?: boolean;
}): PackResult {
  const byDay = new Map<string, PackMember[]>();
  for (const member of options.members) {
    const list = byDay.get(member.day) ?? [];
    list.push(member);
    byDay.set(member.day, list);
  }
  const records: Record<string, OutputRecord> = {};
  const limit = packPartBytes();
  let written = 0;
  const here = (output: string) => path.join(options.outDir, output);
  // The last build's packs, parts and indexes by day (read once: a site has thousands of outputs).
  const previousByDay = new Map<string, string[]>();
  for (const output of Object.keys(options.previous ?? {})) {
    const day = PACK_FILE.exec(output)?.[1];
    if (day !== undefined) previousByDay.set(day, [...(previousByDay.get(day) ?? []), output]);
  }
  for (const [day, members] of [...byDay].sort((a, b) => a[0].localeCompare(b[0]))) {
    members.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.output.localeCompare(b.output));
    const hash = createHash('sha256').update(String(limit)).update('\0');
    for (const m of members) {
      const record = options.memberRecords[m.output];
      hash.update(JSON.stringify([m.output, record?.key, record?.size, record?.mtimeMs])).update('\0');
    }
    const key = hash.digest('hex');
    const index = markdownPackIndexRoute(day);
    const known = (previousByDay.get(day) ?? []).map((output): [string, OutputRecord] => [
      output,
      options.previous![output]!,
    ]);
    if (
      !options.full &&
      options.previous?.[index]?.key === key &&
      known.every(([output, record]) => record.key === key && intact(here(output), record))
    ) {
      for (const [output, record] of known) records[output] = record;
      continue;
    }
    const packed = packOf(members, options.memberFile, limit);
    const files: [string, Buffer][] = [
      ...packed.parts.map((bytes, i): [string, Buffer] => [markdownPackRoute(day, i + 1), bytes]),
      [index, packed.index],
    ];
    for (const [output, bytes] of files) {
      if (writeIfChanged(here(output), bytes, options.full)) written += 1;
      const stat = statSync(here(output));
      records[output] = { key, size: stat.size, mtimeMs: stat.mtimeMs };
    }
  }
  return { records, written };
}

/** A pack's part or its index, as markdownPackRoute and markdownPackIndexRoute name them: its day. */
const PACK_FILE = /^days\/([^/]+)\.sessions(?:\.\d+)?\.(?:md\.gz|json)$/;

/**
 * One day's pack, in parts of at most `limit` bytes, and its index: `{"<source>/<id>": [start, length,
 * markdownStart, markdownLength]}`, in bytes of the part and of the Markdown it decompresses to (a host that serves
 * `.gz` files gzip-encoded hands over the latter), and a fifth number, the part, from the second part on. A
 * member's Markdown length is its gzip trailer's.
 */
function packOf(
  members: readonly PackMember[],
  memberFile: (output: string) => string,
  limit: number,
): { parts: Buffer[]; index: Buffer } {
  const parts: Buffer[][] = [[]];
  const index: Record<string, number[]> = {};
  let at = 0;
  let markdownAt = 0;
  for (const member of members) {
    const bytes = readFileSync(memberFile(member.output));
    if (at > 0 && at + bytes.length > limit) {
      parts.push([]);
      at = 0;
      markdownAt = 0;
    }
    const markdownLength = bytes.length >= 18 ? bytes.readUInt32LE(bytes.length - 4) : 0;
    index[member.name] = [at, bytes.length, markdownAt, markdownLength, ...(parts.length > 1 ? [parts.length] : [])];
    parts.at(-1)!.push(bytes);
    at += bytes.length;
    markdownAt += markdownLength;
  }
  return { parts: parts.map((part) => Buffer.concat(part)), index: Buffer.from(`${JSON.stringify(index)}\n`) };
}

/** Removes from the site the `.md.gz` beside each session's page that a build before packs recorded; how many. */
export function removeUnpackedMarkdown(outDir: string, outputs: Readonly<Record<string, OutputRecord>>): number {
  let removed = 0;
  for (const output of Object.keys(outputs).filter(isMarkdownMember)) {
    const file = path.join(outDir, output);
    if (!statSync(file, { throwIfNoEntry: false })) continue;
    rmSync(file);
    removed += 1;
  }
  return removed;
}

/** Packs the members a build left in the site itself (Astro's own build) and removes them from it. */
export function packMembersInSite(outDir: string, summaries: Iterable<SessionSummary>, timeZone: string): void {
  const members = packMembers(summaries, timeZone).filter((m) =>
    statSync(path.join(outDir, m.output), { throwIfNoEntry: false }),
  );
  writeMarkdownPacks({ members, memberRecords: {}, memberFile: (output) => path.join(outDir, output), outDir });
  for (const member of members) rmSync(path.join(outDir, member.output));
}
