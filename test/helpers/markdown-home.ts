import { promises as fs } from 'node:fs';
import path from 'node:path';
import { DataDir } from '../../src/archive/data-dir.ts';
import { collect } from '../../src/collect/collect.ts';
import { markdownSegments } from '../../src/transcript/render-session.ts';
import { SESSION } from './paths.ts';

/** Collects a fixture home (a copy) into `dataDir`. */
export async function collectHome(home: string, dataDir: string) {
  return collect({ home, env: {}, dataDir, sourceOptions: { explicitHome: 'true' } });
}

/** Appends one answer to the fixture transcript of session E. */
export async function appendAnswer(home: string, uuid: string, text: string): Promise<void> {
  const file = path.join(home, '.claude', 'projects', '-home-alice-work-webapp', `${SESSION.E}.jsonl`);
  const last = JSON.parse((await fs.readFile(file, 'utf8')).trim().split('\n').pop()!);
  const record = {
    ...last,
    type: 'assistant',
    uuid,
    parentUuid: last.uuid,
    timestamp: '2026-03-05T08:20:00.000Z',
    message: { ...last.message, role: 'assistant', id: `msg_${uuid}`, content: [{ type: 'text', text }] },
  };
  await fs.appendFile(file, `${JSON.stringify(record)}\n`);
}

/** Every Markdown text of the archive, read whole (the slow way, to check the fast one). */
export async function markdownTexts(dataDir: string): Promise<string[]> {
  const data = new DataDir(dataDir);
  const texts: string[] = [];
  for (const summary of await data.readSummaries()) {
    const body = await data.readBody(summary.body);
    for (const segment of markdownSegments(body!.session)) texts.push(segment.text);
  }
  return texts;
}
