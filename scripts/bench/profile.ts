// What the generators of the five smaller sources (Gemini CLI, Copilot CLI, Cursor, OpenCode, Cline) share: a
// size profile scaled like the others, the period sessions are spread over, and a writer that counts bytes.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { scaleSizes } from './generate-claude.ts';

export interface SessionProfile {
  sessions: number;
  medianBytes: number;
  maxBytes: number;
  totalBytes: number;
  projects: number;
  seed: number;
}

/** The count and total scale with `scale` (never under 2 sessions), the median stays, the largest shrinks slowly. */
export function scaleSessionProfile(profile: SessionProfile, scale: number): SessionProfile {
  if (scale === 1) return { ...profile };
  const { count, ...sizes } = scaleSizes({ ...profile, count: profile.sessions }, scale, 2, 200_000);
  return { ...profile, ...sizes, sessions: count };
}

/** The same months as the Claude, Codex and Amazon Q parts of the corpus. */
const START = Date.parse('2026-01-05T00:00:00Z');
const SPAN = 130 * 86_400_000;

/** When session `i` of `n` starts: spread evenly over the period, within the hour. */
export function sessionStart(i: number, n: number, random: () => number): number {
  return START + Math.floor((i / n) * SPAN) + Math.floor(random() * 3_600_000);
}

export const iso = (ms: number): string => new Date(ms).toISOString();

/** Writes `text` to `file`, making its folder; returns its length in bytes. */
export async function writeText(file: string, text: string): Promise<number> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
  return Buffer.byteLength(text);
}

/** `lines` lines of a source listing or command output, each naming `file` and a line number. */
export function outputLines(file: string, lines: number, words: (n: number) => string): string {
  return Array.from({ length: lines }, (_, i) => `${file}:${i + 1}: ${words(4 + (i % 7))}`).join('\n');
}
