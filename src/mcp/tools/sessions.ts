import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MAIN_THREAD } from '../../model/body.ts';
import { SOURCE_LABELS } from '../../model/labels.ts';
import type { Session, SessionSummary } from '../../model/session.ts';
import { formatNumber } from '../../util/format.ts';
import { Budget } from '../budget.ts';
import { parseRange } from '../dates.ts';
import { oneLine, sessionHeader, sessionLine, summaryJson, when } from '../describe.ts';
import { textResult, ToolInputError } from '../errors.ts';
import type { Logbook } from '../logbook.ts';
import { filterSessions, findSession } from '../lookup.ts';
import { readThreadWindow } from '../session-reader.ts';
import {
  day,
  DEFAULT_MAX_CHARS,
  DEFAULT_MAX_OUTPUT_CHARS,
  includeThinking,
  includeToolCalls,
  maxChars,
  maxOutputChars,
  project,
  safely,
  source,
  registerTool,
} from '../tool-kit.ts';
import { Clock, emptyOmitted, messageBlock, omittedNote } from '../transcript.ts';

export function registerSessionTools(server: McpServer, logbook: Logbook, log: (line: string) => void): void {
  registerTool(
    server,
    'list_projects',
    {
      title: 'List projects',
      description:
        'The projects (working directories) the coding assistants were used in, most recently active first, with ' +
        'session counts, first and last activity, and which assistants. Use a project name from here with ' +
        'list_sessions, get_history_by_project or stats.',
      inputSchema: {
        source,
        limit: z.number().int().min(1).max(1000).optional().describe('At most this many projects (default 100).'),
        max_chars: maxChars,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    safely(async ({ source: only, limit, max_chars }) => {
      const snapshot = await logbook.snapshot();
      const tz = logbook.timeZone;
      const projects = [...snapshot.projects.values()]
        .map((p) => {
          const sessions = only ? p.sessions.filter((s) => s.source === only) : p.sessions;
          return { p, sessions };
        })
        .filter(({ sessions }) => sessions.length > 0);
      const shown = projects.slice(0, limit ?? 100);
      const rows = shown.map(({ p, sessions }) => {
        const sources = [...new Set(sessions.map((s) => s.source))];
        const prompts = sessions.reduce((n, s) => n + s.stats.prompts, 0);
        const first = sessions.reduce(
          (a, s) => (s.startedAt && s.startedAt < a ? s.startedAt : a),
          sessions[0]!.startedAt,
        );
        const last = sessions.reduce((a, s) => (s.endedAt > a ? s.endedAt : a), sessions[0]!.endedAt);
        return { name: p.name, cwd: p.cwd, slug: p.slug, sessions: sessions.length, prompts, first, last, sources };
      });
      const budget = new Budget(max_chars ?? DEFAULT_MAX_CHARS, undefined, '\n');
      budget.add(
        `${projects.length} projects${only ? ` with ${SOURCE_LABELS[only]} sessions` : ''} (times in ${tz}), most recent first:`,
      );
      let listed = 0;
      for (const r of rows) {
        const line =
          `- ${r.name}${r.cwd ? ` (${r.cwd})` : ''} · ${r.sessions} sessions, ${formatNumber(r.prompts)} prompts · ` +
          `${when(r.first, tz)} → ${when(r.last, tz)} · ${r.sources.map((s) => SOURCE_LABELS[s] ?? s).join(', ')}`;
        if (!budget.add(line)) break;
        listed += 1;
      }
      const left = projects.length - listed;
      return textResult(
        budget.finish(left > 0 ? `… ${left} more (raise limit or max_chars, or filter by source).` : ''),
        { projects: rows.slice(0, listed), total: projects.length },
      );
    }, log),
  );

  registerTool(
    server,
    'list_sessions',
    {
      title: 'List sessions',
      description:
        'Conversations (sessions) with the coding assistants, newest first: id, time, project, title and counts. ' +
        'Filter by project, assistant (source), days (since/until) and words in the title or prompts (query). ' +
        'Read one with get_session. Pages: pass the returned next_cursor as cursor.',
      inputSchema: {
        project,
        source,
        since: day('First day'),
        until: day('Last day'),
        query: z
          .string()
          .optional()
          .describe('Words that must all appear in the session title, its prompts, its directory or its id.'),
        limit: z.number().int().min(1).max(200).optional().describe('Sessions per page (default 20).'),
        cursor: z.string().optional().describe('next_cursor from the previous page.'),
        max_chars: maxChars,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    safely(async (args) => {
      const snapshot = await logbook.snapshot();
      const tz = logbook.timeZone;
      const range = parseRange(args, tz);
      const list = filterSessions(snapshot, { ...args, range }, tz);
      if (args.cursor !== undefined && !/^\d+$/.test(args.cursor.trim()))
        throw new ToolInputError(`cursor "${args.cursor}" is not one this tool gave out; call again without a cursor`);
      const offset = args.cursor === undefined ? 0 : Number(args.cursor.trim());
      const limit = args.limit ?? 20;
      const candidates = list.slice(offset, offset + limit);
      const budget = new Budget(args.max_chars ?? DEFAULT_MAX_CHARS, undefined, '\n');
      budget.add(
        list.length === 0
          ? 'No sessions match.'
          : `${list.length} sessions match (newest first, times in ${tz})${offset ? `; from number ${offset + 1}` : ''}:`,
      );
      let shown = 0;
      for (const s of candidates) {
        if (!budget.add(sessionLine(s, tz))) break;
        shown += 1;
      }
      const page = candidates.slice(0, shown);
      const next = offset + shown < list.length ? String(offset + shown) : undefined;
      return textResult(
        budget.finish(next ? `More: call list_sessions with the same filters and cursor: "${next}".` : ''),
        {
          sessions: page.map((s) => summaryJson(s, tz)),
          total: list.length,
          ...(next ? { next_cursor: next } : {}),
        },
      );
    }, log),
  );

  const sessionInput = (toolsByDefault: boolean) => ({
    session: z
      .string()
      .describe(
        'The session: <source>/<session-id> as list_sessions shows it, a session id, or a unique start of one.',
      ),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        'Index of the first message to show (0-based; default 0). The previous answer says where the next page starts.',
      ),
    prompt: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Start at the N-th prompt the user typed (1-based) instead of at offset.'),
    limit: z.number().int().min(1).max(2000).optional().describe('Messages to read at most (default 100).'),
    thread: z
      .string()
      .optional()
      .describe("A subagent's id (the header lists them) to read that subagent's own conversation."),
    include_thinking: includeThinking(false),
    include_tool_calls: includeToolCalls(toolsByDefault),
    max_output_chars: maxOutputChars,
    max_chars: maxChars,
  });
  type SessionArgs = z.infer<z.ZodObject<ReturnType<typeof sessionInput>>>;

  const getSession = (name: string, toolsByDefault: boolean) =>
    safely(async (args: SessionArgs) => {
      const snapshot = await logbook.snapshot();
      const summary = findSession(snapshot, args.session);
      return renderSession(logbook, summary, name, args, toolsByDefault);
    }, log);

  registerTool(
    server,
    'get_session',
    {
      title: 'Read a session',
      description:
        'One conversation in order: the prompts, the answers, and (by default) every tool call with its input and ' +
        'result, long outputs cut with a note. Long sessions come a page at a time: the answer ends with the offset ' +
        'of the next page. Use prompt: N to jump to the N-th prompt.',
      inputSchema: sessionInput(true),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    getSession('get_session', true),
  );

  registerTool(
    server,
    'get_session_detail',
    {
      title: 'Read a session (conversation only by default)',
      description:
        'The same as get_session, with tool calls and thinking left out unless asked for (include_tool_calls, ' +
        'include_thinking): what the user asked and what the assistant answered.',
      inputSchema: sessionInput(false),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    getSession('get_session_detail', false),
  );
}

export async function renderSession(
  logbook: Logbook,
  summary: SessionSummary,
  tool: string,
  args: {
    session: string;
    offset?: number;
    prompt?: number;
    limit?: number;
    thread?: string;
    include_thinking?: boolean;
    include_tool_calls?: boolean;
    max_output_chars?: number;
    max_chars?: number;
  },
  toolsByDefault: boolean,
) {
  const tz = logbook.timeZone;
  const thread = args.thread ?? MAIN_THREAD;
  const window = await readThreadWindow(logbook.dataDir, summary.body, {
    thread,
    from: args.offset ?? 0,
    limit: args.limit ?? 100,
    fromPrompt: args.prompt,
    cap: Math.max(args.max_output_chars ?? 0, args.max_chars ?? 0),
  });
  if (!window) throw new ToolInputError(`the archive has no transcript for ${summary.id} (its body file is missing)`);
  const agents = window.header.subagents ?? [];
  if (thread !== MAIN_THREAD && !agents.some((a) => a.agentId === thread)) {
    throw new ToolInputError(
      `${summary.id} has no subagent "${thread}"` +
        (agents.length ? `; its subagents: ${agents.map((a) => a.agentId).join(', ')}` : ' (it has no subagents)'),
    );
  }
  if (args.prompt !== undefined && args.prompt > window.promptIndexes.length) {
    throw new ToolInputError(`${summary.id} has ${window.promptIndexes.length} prompts, not ${args.prompt}`);
  }
  if (window.total > 0 && window.from >= window.total) {
    throw new ToolInputError(
      `offset ${window.from} is past the end of ${summary.id}: its messages are 0–${window.total - 1}`,
    );
  }
  let messages = window.messages;
  if (logbook.share) {
    const shared = logbook.share.session({ ...(window.header as Session), messages: messages.map((m) => m.message) });
    messages = messages.map((m, i) => ({ index: m.index, message: shared.messages[i]! }));
  }
  const options = {
    includeThinking: args.include_thinking ?? false,
    includeToolCalls: args.include_tool_calls ?? toolsByDefault,
    maxOutputChars: args.max_output_chars ?? DEFAULT_MAX_OUTPUT_CHARS,
    timeZone: tz,
  };
  const budget = new Budget(args.max_chars ?? DEFAULT_MAX_CHARS);
  const header = sessionHeader(summary, tz);
  if (thread === MAIN_THREAD && agents.length > 0) {
    const clean = (t: string) => (logbook.share ? logbook.share.text(t) : t);
    header.push(
      `Subagents (read one with thread: "<id>"): ${agents
        .slice(0, 20)
        .map(
          (a) =>
            `${a.agentId}${a.agentType || a.description ? ` (${clean(oneLine([a.agentType, a.description].filter(Boolean).join(': '), 80))})` : ''}`,
        )
        .join('; ')}${agents.length > 20 ? `; … ${agents.length - 20} more` : ''}`,
    );
  }
  if (thread !== MAIN_THREAD) header.push(`Subagent thread ${thread}.`);
  header.push(
    window.total === 0
      ? 'The transcript has no messages.'
      : `Messages ${window.from}–${Math.min(window.from + (args.limit ?? 100), window.total) - 1} of ${window.total}` +
          ` (numbered from 0; ${window.promptIndexes.length} prompts):`,
  );
  budget.addCut(header.join('\n'), (left) => `[… header cut: ${left} characters]`);
  const clock = new Clock(tz);
  const omitted = emptyOmitted();
  let next = window.from;
  for (const { index, message } of messages) {
    const block = messageBlock(message, index, clock, options, omitted);
    if (block !== undefined) {
      // The first message is cut rather than left out, so that a page always moves on.
      const added =
        budget.taken <= 1
          ? budget.addCut(block, (left) => `[… message cut at max_chars: ${formatNumber(left)} more characters]`)
          : budget.add(block);
      if (!added) break;
    }
    next = index + 1;
  }
  const done = next >= window.total;
  const more = done
    ? 'End of the transcript.'
    : `More: messages ${next}–${window.total - 1} not shown. Next page: ${tool} with session "${summary.id}"` +
      `${thread === MAIN_THREAD ? '' : `, thread "${thread}"`}, offset ${next} (other arguments the same).`;
  const footer = [more, omittedNote(omitted)].filter(Boolean).join('\n');
  return textResult(budget.finish(footer), {
    session: summary.id,
    thread: thread === MAIN_THREAD ? null : thread,
    offset: window.from,
    next_offset: done ? null : next,
    total_messages: window.total,
    prompts: window.promptIndexes.length,
  });
}
