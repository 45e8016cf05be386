import { promises as fs } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { idToPathSegment } from '../../src/model/ids.ts';

/** A session's gzip member in the site's day packs (`days/<day>.sessions.md.gz`), found through their indexes. */
export function sessionMarkdownMember(out: string, source: string, sessionId: string): Promise<Buffer> {
  return packMember(out, `${source}/${idToPathSegment(sessionId)}`);
}

/** The member named `<source>/<id segment>` in the site's day packs. */
export async function packMember(out: string, name: string): Promise<Buffer> {
  const days = path.join(out, 'days');
  for (const file of (await fs.readdir(days)).filter((f) => f.endsWith('.sessions.json')).sort()) {
    const index = JSON.parse(await fs.readFile(path.join(days, file), 'utf8')) as Record<string, number[]>;
    const at = index[name];
    if (!at) continue;
    // From the second part of a busy day's pack on, its part is the fifth number.
    const part = at[4] ? `.${at[4]}` : '';
    const pack = await fs.readFile(path.join(days, file.replace(/\.json$/, `${part}.md.gz`)));
    return pack.subarray(at[0], at[0]! + at[1]!);
  }
  throw new Error(`${name}: in no day's pack of ${out}`);
}

/** A session's Markdown export as the site has it. */
export async function sessionMarkdownOf(out: string, source: string, sessionId: string): Promise<string> {
  return gunzipSync(await sessionMarkdownMember(out, source, sessionId)).toString('utf8');
}
