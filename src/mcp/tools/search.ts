import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ensureSearchIndex, parseQuery, searchLogbook, type SearchHit, type SearchKind } from '../../search/index.ts';
import { Budget } from '../budget.ts';
import { parseRange } from '../dates.ts';
import { oneLine, when } from '../describe.ts';
import { textResult, ToolInputError } from '../errors.ts';
import type { Logbook } from '../logbook.ts';
import { requireProjects } from '../lookup.ts';
import {
  day,
  DEFAULT_MAX_CHARS,
  includeThinking,
  includeToolCalls,
  maxChars,
  project,
  safely,
  source,
  registerTool,
} from '../tool-kit.ts';

/** The search of `agent-logbook search` (the SQLite FTS5 index in the data directory, src/search/). */

const CONVERSATION: SearchKind[] = ['prompt', 'answer', 'command', 'summary', 'session'];

export function registerSearchTool(server: McpServer, logbook: Logbook, log: (line: string) => void): void {
  registerTool(
    server,
    'search',
    {
      title: 'Search the conversations',
      description:
        'Full-text search over every archived session (the index of `agent-logbook search`): prompts, answers, and ' +
        'by default tool inputs and outputs (commands, file contents, errors) and thinking. Every word or "quoted ' +
        'phrase" must occur in one message (any case, any part of a word; Japanese and other CJK text works). Newest ' +
        'hits first; each gives the session id and message index: read around it with get_session (offset).',
      inputSchema: {
        query: z
          .string()
          .min(1)
          .describe('Words or "quoted phrases" to find, e.g. deploy rollback, "npm test", ログイン.'),
        project,
        source,
        since: day('First day'),
        until: day('Last day'),
        include_tool_calls: includeToolCalls(true),
        include_thinking: includeThinking(true),
        limit: z.number().int().min(1).max(200).optional().describe('Hits per page (default 20).'),
        cursor: z.string().optional().describe('next_cursor from the previous page.'),
        max_chars: maxChars,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    safely(async (args) => {
      const snapshot = await logbook.snapshot();
      const tz = logbook.timeZone;
      const range = parseRange(args, tz);
      if (parseQuery(args.query).length === 0)
        throw new ToolInputError('query is empty: give one or more words to find');
      if (args.cursor !== undefined && !/^\d+$/.test(args.cursor.trim()))
        throw new ToolInputError(`cursor "${args.cursor}" is not one this tool gave out; call again without a cursor`);
      let projectFilter: string | undefined;
      if (args.project) {
        const found = requireProjects(snapshot, args.project);
        // The index holds the real directories; shared answers only know anonymized ones, whose last part is the same.
        projectFilter = found.length === 1 ? (logbook.share ? found[0]!.name : found[0]!.slug) : args.project.trim();
      }
      const kinds: SearchKind[] = [...CONVERSATION];
      if (args.include_tool_calls ?? true) kinds.push('tool-input', 'tool-output');
      if (args.include_thinking ?? true) kinds.push('thinking');
      const offset = Number(args.cursor?.trim() ?? 0);
      const limit = args.limit ?? 20;
      await ensureSearchIndex(logbook.dataDir);
      const found = await searchLogbook(logbook.dataDir, args.query, {
        source: args.source,
        project: projectFilter,
        since: range.since,
        until: range.until,
        timeZone: tz,
        kinds,
        limit: limit + 1,
        offset,
      });
      const hits = found.slice(0, limit);
      const clean = (text: string) => (logbook.share ? logbook.share.text(text) : text);
      const budget = new Budget(args.max_chars ?? DEFAULT_MAX_CHARS, undefined, '\n');
      budget.add(
        hits.length === 0
          ? `No match for ${JSON.stringify(args.query)}${offset ? ' after the hits already shown' : ''}.`
          : `Hits ${offset + 1}–${offset + hits.length} for ${JSON.stringify(args.query)} (newest first, times in ${tz}; matches between « »):`,
      );
      let shown = 0;
      for (const hit of hits) {
        if (!budget.add(hitLine(hit, tz, clean))) break;
        shown += 1;
      }
      const next = found.length > limit || shown < hits.length ? String(offset + shown) : undefined;
      const footer = [
        next ? `More hits: call search with the same arguments and cursor: "${next}".` : '',
        shown ? 'Read around a hit: get_session with its session and offset: the [index].' : '',
      ]
        .filter(Boolean)
        .join('\n');
      return textResult(budget.finish(footer), {
        hits: hits.slice(0, shown).map((hit) => ({
          session: hit.key,
          message_index: hit.messageIndex,
          kind: hit.kind,
          timestamp: hit.timestamp,
          project: clean(hit.projectName),
          title: clean(hit.title),
          snippet: clean(hit.snippet),
        })),
        ...(next ? { next_cursor: next } : {}),
      });
    }, log),
  );
}

function hitLine(hit: SearchHit, timeZone: string, clean: (text: string) => string): string {
  const index = hit.messageIndex === null ? '' : ` [${hit.messageIndex}]`;
  return (
    `- ${hit.key}${index} ${when(hit.timestamp, timeZone)} ${clean(hit.projectName)} · ` +
    `"${clean(oneLine(hit.title, 80))}" · ${hit.kind}: ${clean(hit.snippet)}`
  );
}
