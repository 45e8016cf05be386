import { promises as fs } from 'node:fs';
import path from 'node:path';

/** A long, tool-heavy, Japanese Claude Code session (more than one page), written into a home's `.claude`. */
export const LONG = 'cccccccc-0003-4000-8000-000000000003';
export const LONG_PROMPTS = 40;
const LONG_CALLS = 12;

export async function writeLongSession(home: string): Promise<void> {
  const dir = path.join(home, '.claude', 'projects', '-home-alice-work-shop');
  const common = { cwd: '/home/alice/work/shop', sessionId: LONG, version: '2.1.150', isSidechain: false };
  const lines: unknown[] = [];
  const base = Date.parse('2026-03-09T23:40:00Z'); // crosses midnight UTC
  let n = 0;
  const at = () => new Date(base + n++ * 2000).toISOString();
  for (let p = 0; p < LONG_PROMPTS; p++) {
    lines.push({ ...common, type: 'file-history-snapshot', uuid: `s${p}`, timestamp: at() });
    lines.push({
      ...common,
      type: 'user',
      uuid: `u${p}`,
      timestamp: at(),
      message: { role: 'user', content: `質問 ${p + 1}: カートの合計を確認してください。` },
    });
    // One prompt in ten is very long: a dozen calls in parallel, their big results after all of them.
    const calls = p % 10 === 5 ? LONG_CALLS * 4 : LONG_CALLS;
    const ids = Array.from({ length: calls }, (_, c) => `call_${p}_${c}`);
    ids.forEach((id, c) =>
      lines.push({
        ...common,
        type: 'assistant',
        uuid: `a${p}_${c}`,
        timestamp: at(),
        message: {
          id: `m${p}_${Math.floor(c / 3)}`,
          role: 'assistant',
          model: 'claude-opus-4-6',
          content: [{ type: 'tool_use', id, name: 'Bash', input: { command: `cat part-${p}-${c}.log` } }],
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      }),
    );
    for (const id of [...ids].reverse())
      lines.push({
        ...common,
        type: 'user',
        uuid: `r${id}`,
        timestamp: at(),
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: id,
              content: id.endsWith('_0') ? longOutput(id) : `${id}\n${'ログ行 '.repeat(400)}`,
            },
          ],
        },
      });
    lines.push({
      ...common,
      type: 'assistant',
      uuid: `b${p}`,
      timestamp: at(),
      message: {
        id: `m${p}b`,
        role: 'assistant',
        model: 'claude-opus-4-6',
        content: [{ type: 'text', text: `回答 ${p + 1}` }],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    });
  }
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, `${LONG}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

/** 41 short lines: more than a screenful (LongText's "show all"), under the page's cut of a tool's output, with the
 * characters a page must escape (or need not). */
export function longOutput(id: string): string {
  // Past a screenful of lines (24 shown) but within the characters a page shows of an output (1,000).
  return [id, ...Array.from({ length: 40 }, (_, i) => `[${id.slice(5)}]行${i + 1} "q" 's' <b> &`)].join('\n');
}
