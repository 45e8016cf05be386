import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcp, type McpRun } from '../helpers/mcp.ts';
import { FIXTURE_HOME, SESSION, tempDir } from '../helpers/paths.ts';

let mcp: McpRun;

beforeAll(async () => {
  const dataDir = path.join(await tempDir('mcp-args'), 'data');
  mcp = await startMcp(['--home', FIXTURE_HOME, '--data', dataDir, '--tz', 'UTC', '--assistants', 'claude-code']);
});

afterAll(async () => {
  await mcp?.close();
});

/** Arguments a tool accepts: its required ones filled in, so only the unknown one can be wrong. */
const REQUIRED: Record<string, unknown> = { query: 'login', session: `claude-code/${SESSION.A}` };

describe('MCP tools and arguments they do not know', () => {
  it('day_report with "day" (its key is "date") is an error naming the known arguments, not today’s report', async () => {
    const wrong = await mcp.call('day_report', { day: '2026-03-04' });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toContain('unknown argument "day"; day_report takes: date, format, max_chars.');
    expect(wrong.text).not.toContain('# ');

    const right = await mcp.call('day_report', { date: '2026-03-04' });
    expect(right.isError ?? false, right.text).toBe(false);
    expect(right.text).toContain('2026-03-04');
  });

  it('every tool refuses an unknown argument, names it and its own arguments, and says so in its schema', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(10);
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      const known = Object.keys(tool.inputSchema.properties ?? {});
      const args = Object.fromEntries((tool.inputSchema.required ?? []).map((key) => [key, REQUIRED[key]]));
      const result = await mcp.call(tool.name, { ...args, max_char: 5000, sinse: 'yesterday' });
      expect(result.isError, `${tool.name}: ${result.text}`).toBe(true);
      expect(result.text).toContain(`unknown arguments "max_char", "sinse"; ${tool.name} takes: ${known.join(', ')}.`);
    }
  });
});
