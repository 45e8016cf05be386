import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/session.ts';
import { claudeCode } from '../../src/sources/claude-code/index.ts';
import { buildSessionView } from '../../src/transcript/session-view.ts';
import { tempDir } from '../helpers/paths.ts';

const ID = '3a3a3a3a-0000-4000-8000-00000000000a';
const INSTRUCTIONS = 'Please analyze this codebase and create a CLAUDE.md file.\nWhat to add:\n1. Commands';

/** Reads one Claude Code session written as `records`. */
async function readSession(records: unknown[]): Promise<Session> {
  const home = await tempDir('old-command');
  const dir = path.join(home, '.claude', 'projects', '-work-app');
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, `${ID}.jsonl`), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const ctx = { home, env: {}, options: { explicitHome: 'true' }, warn: () => {}, archived: new Set<string>() };
  for await (const item of claudeCode.read(await claudeCode.locate(ctx), ctx))
    if (item.kind === 'session') return item.session;
  throw new Error('no session read');
}

const base = { sessionId: ID, cwd: '/work/app', version: '1.0.17', parentUuid: null, isSidechain: false };

describe('an old-format slash command (/init with <command-contents>)', () => {
  for (const [shape, contents] of [
    ['JSON with a text field', JSON.stringify({ type: 'text', text: INSTRUCTIONS }, null, 2)],
    ['plain text', INSTRUCTIONS],
  ] as const) {
    it(`keeps the instructions the model got (${shape}) as the command's expansion`, async () => {
      const session = await readSession([
        {
          ...base,
          type: 'user',
          uuid: 'u1',
          timestamp: '2025-06-14T11:00:00.000Z',
          message: {
            role: 'user',
            content: [
              {
                type: 'text',
                text: `<command-message>init is analyzing your codebase…</command-message>\n  <command-name>init</command-name>\n  <command-args></command-args>\n  <command-contents>${contents}</command-contents>`,
              },
            ],
          },
        },
        {
          ...base,
          type: 'assistant',
          uuid: 'a1',
          timestamp: '2025-06-14T11:00:05.000Z',
          message: {
            id: 'm1',
            role: 'assistant',
            model: 'claude-sonnet-4',
            content: [{ type: 'text', text: 'Done.' }],
          },
        },
      ]);
      const kinds = session.messages.map((m) => [m.metadata?.kind, m.segments.map((s) => s.text).join('')]);
      expect(kinds).toEqual([
        ['command', 'init'],
        ['injected', INSTRUCTIONS],
        ['response', 'Done.'],
      ]);
      const view = buildSessionView(session);
      const command = view.find((item) => item.kind === 'command');
      expect(command).toMatchObject({ command: 'init', expanded: [INSTRUCTIONS] });
    });
  }
});
