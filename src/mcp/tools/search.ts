import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MAIN_THREAD } from '../../model/body.ts';
import type { NormalizedMessage } from '../../model/message.ts';
import { projectName } from '../../model/project.ts';
import { Budget } from '../budget.ts';
import { parseRange, rangeInstants } from '../dates.ts';
import { when } from '../describe.ts';
import { textResult, ToolInputError } from '../errors.ts';
import type { Logbook } from '../logbook.ts';
import { filterSessions } from '../lookup.ts';
import { threadEvents } from '../session-reader.ts';
import { day, DEFAULT_MAX_CHARS, includeToolCalls, maxChars, project, safely, source } from '../tool-kit.ts';

/**
 * INTERIM search: a streamed scan of the archive's messages for the query's words. It stands in for the
 * SQLite FTS5 index of `agent-logbook search` (src/search/) until that is merged; the tool's name, input
 * and answer stay the same when it is switched over.
 */

const SNIPPET = 240;

function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

function searchableText(m: NormalizedMessage, withTools: boolean): { role: string; text: string } | undefined {
  const kind = m.metadata?.kind;
  const text = () =>
    m.segments
      .filter((s) => s.type === 'text' && s.format !== 'thinking')
      .map((s) => s.text ?? '')
      .join('\n');
  if (kind === 'prompt') return { role: 'user', text: text() };
  if (kind === 'response') return { role: 'assistant', text: text() };
  if (!withTools) return undefined;
  if (m.source_type === 'tool_call' && m.tool_call)
    return { role: `tool call ${m.tool_call.name}`, text: m.tool_call.arguments ?? '' };
  if (m.source_type === 'tool_result' && m.tool_call)
    return { role: `tool result ${m.tool_call.name}`, text: m.tool_call.output ?? text() };
  if (kind === 'command_output') return { role: 'command output', text: text() };
  return undefined;
}

function snippet(text: string, at: number): string {
  const start = Math.max(0, at - SNIPPET / 3);
  const piece = text
    .slice(start, start + SNIPPET)
    .replace(/\s+/g, ' ')
    .trim();
  return `${start > 0 ? '…' : ''}${piece}${start + SNIPPET < text.length ? '…' : ''}`;
}

export function registerSearchTool(server: McpServer, logbook: Logbook, log: (line: string) => void): void {
  server.registerTool(
    'search',
    {
      title: 'Search the conversations',
      description:
        'Finds messages containing all the words of a query (any language, case-insensitive) in the prompts and answers ' +
        'of every archived session, and with include_tool_calls also in tool inputs and outputs (commands, file contents, ' +
        'errors). Each hit gives the session id and message index: read around it with get_session (offset). Newest sessions first.',
      inputSchema: {
        query: z.string().min(1).describe('Words to find, e.g. "deploy rollback" or "ログイン".'),
        project,
        source,
        since: day('First day'),
        until: day('Last day'),
        include_tool_calls: includeToolCalls(true),
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
      const words = fold(args.query).split(/\s+/).filter(Boolean);
      if (words.length === 0) throw new ToolInputError('query is empty: give one or more words to find');
      const sessions = filterSessions(snapshot, { project: args.project, source: args.source, range }, tz);
      if (args.cursor !== undefined && !/^\d+$/.test(args.cursor))
        throw new ToolInputError(`cursor "${args.cursor}" is not one this tool gave out; call again without a cursor`);
      const skip = Number(args.cursor ?? 0);
      const limit = args.limit ?? 20;
      const withTools = args.include_tool_calls ?? true;
      const { from, to } = rangeInstants(range, tz);
      const hits: { session: string; index: number; role: string; at: string; snippet: string }[] = [];
      let seen = 0;
      let more = false;
      scan: for (const summary of sessions) {
        for await (const event of threadEvents(logbook.dataDir, summary.body)) {
          if (event.kind !== 'message' || event.thread !== MAIN_THREAD) continue;
          const t = Date.parse(event.message.timestamp);
          if (!Number.isNaN(t) && (t < from || t >= to)) continue;
          const found = searchableText(event.message, withTools);
          if (!found) continue;
          const hay = fold(found.text);
          if (!words.every((w) => hay.includes(w))) continue;
          seen += 1;
          if (seen <= skip) continue;
          if (hits.length === limit) {
            more = true;
            break scan;
          }
          const shown = logbook.share ? logbook.share.text(found.text) : found.text;
          const at = fold(shown).indexOf(words[0]!);
          hits.push({
            session: summary.id,
            index: event.index,
            role: found.role,
            at: event.message.timestamp,
            snippet: snippet(shown, Math.max(0, at)),
          });
        }
      }
      const budget = new Budget(args.max_chars ?? DEFAULT_MAX_CHARS);
      budget.add(
        hits.length === 0
          ? `No messages contain ${words.map((w) => `"${w}"`).join(' and ')}${withTools ? '' : ' (tool calls not searched)'}.`
          : `Messages ${skip + 1}–${skip + hits.length} containing ${words.map((w) => `"${w}"`).join(' and ')} (newest sessions first, times in ${tz}):`,
      );
      let shownHits = 0;
      for (const hit of hits) {
        const summary = snapshot.byKey.get(hit.session)!;
        const line = `- ${hit.session} [${hit.index}] ${when(hit.at, tz)} ${projectName(summary.cwd)} · ${hit.role}: ${hit.snippet}`;
        if (!budget.add(line)) break;
        shownHits += 1;
      }
      const nextSkip = skip + shownHits;
      const next = more || shownHits < hits.length ? String(nextSkip) : undefined;
      const footer = [
        next ? `More hits: call search with the same arguments and cursor: "${next}".` : '',
        hits.length ? 'Read around a hit: get_session with the session and offset (the [index]).' : '',
      ]
        .filter(Boolean)
        .join('\n');
      return textResult(budget.finish(footer), {
        hits: hits.slice(0, shownHits),
        ...(next ? { next_cursor: next } : {}),
      });
    }, log),
  );
}
