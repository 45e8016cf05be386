import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MAIN_THREAD } from '../../model/body.ts';
import { projectName } from '../../model/project.ts';
import type { Session, SessionSummary } from '../../model/session.ts';
import { timeOf } from '../../stats/calendar.ts';
import { formatNumber } from '../../util/format.ts';
import { Budget } from '../budget.ts';
import { inRange, parseRange, rangeInstants, today, type DayRange } from '../dates.ts';
import { lastActiveBefore, oneLine, span, when } from '../describe.ts';
import { textResult, ToolInputError } from '../errors.ts';
import type { Logbook } from '../logbook.ts';
import { activeDays, requireProjects } from '../lookup.ts';
import { readHeader, threadEvents } from '../session-reader.ts';
import {
  type Cursor,
  day,
  decodeCursor,
  DEFAULT_MAX_CHARS,
  DEFAULT_MAX_OUTPUT_CHARS,
  encodeCursor,
  includeThinking,
  includeToolCalls,
  maxChars,
  maxOutputChars,
  safely,
  source,
  registerTool,
} from '../tool-kit.ts';
import { Clock, emptyOmitted, messageBlock, omittedNote, type TranscriptOptions } from '../transcript.ts';

const order = z
  .enum(['oldest_first', 'newest_first'])
  .optional()
  .describe('Order of the sessions (messages within a session are always in order).');

const conversationInput = {
  include_thinking: includeThinking(false),
  include_tool_calls: includeToolCalls(false),
  max_output_chars: maxOutputChars,
  max_chars: maxChars,
  cursor: z.string().optional().describe('next_cursor from the previous answer, to read on where it stopped.'),
};

export function registerHistoryTools(server: McpServer, logbook: Logbook, log: (line: string) => void): void {
  registerTool(
    server,
    'get_history_by_date',
    {
      title: 'Conversations of some days',
      description:
        "Everything said with the coding assistants on the given days, session by session: the user's prompts and the " +
        "assistant's answers (tool calls and thinking only if asked for), plus prompts whose transcript is gone. Made for " +
        'writing a daily report (日報) or answering "what did I do yesterday". Days are in the server\'s time zone; ' +
        'without until, one day. Long answers continue with cursor.',
      inputSchema: {
        since: day('First day (default today)'),
        until: day('Last day (default: the same as since)'),
        source,
        order,
        ...conversationInput,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    safely(async (args) => {
      const snapshot = await logbook.snapshot();
      const tz = logbook.timeZone;
      const since = args.since ?? 'today';
      const range = parseRange({ since, until: args.until ?? since }, tz);
      const days = activeDays(snapshot);
      const sessions = snapshot.summaries
        .filter((s) => !args.source || s.source === args.source)
        .filter((s) => (days.get(s.id) ?? []).some((d) => inRange(d, range)))
        .sort(byStart(args.order ?? 'oldest_first'));
      const orphanPrompts = [...snapshot.days.values()]
        .filter((d) => inRange(d.day, range))
        .flatMap((d) => d.prompts.filter((p) => p.historyOnly && (!args.source || p.source === args.source)));
      const title = `Conversations ${range.since === range.until ? `on ${range.since}` : `from ${range.since} to ${range.until}`} (${tz})`;
      const intro = [
        `# ${title}: ${sessions.length} sessions${orphanPrompts.length ? `, ${orphanPrompts.length} prompts with no transcript` : ''}.`,
      ];
      if (sessions.length === 0 && orphanPrompts.length === 0) {
        intro.push(
          `${range.since === today(tz) ? 'Nothing yet today.' : 'No activity on these days.'}` +
            lastActiveBefore(snapshot.days, range.since!),
        );
      }
      if (orphanPrompts.length > 0) {
        intro.push(
          'Prompts from the prompt history whose transcript is gone:',
          ...orphanPrompts.map(
            (p) =>
              `- ${timeOf(p.timestamp, tz)} ${p.project ? `${projectName(p.project)}: ` : ''}${oneLine(p.text, 300)}`,
          ),
        );
      }
      return history(logbook, sessions, range, intro.join('\n'), 'get_history_by_date', args);
    }, log),
  );

  registerTool(
    server,
    'get_history_by_project',
    {
      title: "A project's conversations",
      description:
        "The conversations held in one project (working directory), session by session: the user's prompts and the " +
        "assistant's answers (tool calls and thinking only if asked for). Newest sessions first unless order says " +
        'otherwise; since/until narrow it to some days. Long answers continue with cursor.',
      inputSchema: {
        project: z.string().describe('The project: its name (e.g. "webapp"), its directory, or part of the directory.'),
        since: day('First day'),
        until: day('Last day'),
        source,
        order,
        ...conversationInput,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    safely(async (args) => {
      const snapshot = await logbook.snapshot();
      const tz = logbook.timeZone;
      const range = parseRange(args, tz);
      const projects = requireProjects(snapshot, args.project);
      const slugs = new Set(projects.map((p) => p.slug));
      const days = activeDays(snapshot);
      const sessions = projects
        .flatMap((p) => p.sessions)
        .filter((s) => slugs.size > 0 && (!args.source || s.source === args.source))
        .filter((s) => (!range.since && !range.until) || (days.get(s.id) ?? []).some((d) => inRange(d, range)))
        .sort(byStart(args.order ?? 'newest_first'));
      const names = projects.map((p) => `${p.name} (${p.cwd})`).join(', ');
      const period =
        range.since || range.until ? ` from ${range.since ?? 'the start'} to ${range.until ?? 'today'}` : '';
      const intro = `# Conversations in ${names}${period}: ${sessions.length} sessions (times in ${tz}).`;
      return history(logbook, sessions, range, intro, 'get_history_by_project', args);
    }, log),
  );
}

function byStart(order: 'oldest_first' | 'newest_first') {
  return (a: SessionSummary, b: SessionSummary) =>
    (order === 'oldest_first' ? 1 : -1) * (a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id));
}

interface ConversationArgs {
  include_thinking?: boolean;
  include_tool_calls?: boolean;
  max_output_chars?: number;
  max_chars?: number;
  cursor?: string;
}

/**
 * Sessions' conversations one after another, within the budget; each session's messages are streamed from
 * the archive and stop being read once the budget is spent. A cursor names the session and message to go on from.
 */
async function history(
  logbook: Logbook,
  sessions: SessionSummary[],
  range: DayRange,
  intro: string,
  tool: string,
  args: ConversationArgs,
) {
  const tz = logbook.timeZone;
  const options: TranscriptOptions = {
    includeThinking: args.include_thinking ?? false,
    includeToolCalls: args.include_tool_calls ?? false,
    maxOutputChars: args.max_output_chars ?? DEFAULT_MAX_OUTPUT_CHARS,
    timeZone: tz,
  };
  let start: Cursor | undefined;
  let first = 0;
  if (args.cursor) {
    start = decodeCursor(args.cursor);
    first = sessions.findIndex((s) => s.id === start!.k);
    if (first === -1)
      throw new ToolInputError('the session this cursor points to is no longer in the list; call again without cursor');
  }
  const budget = new Budget(args.max_chars ?? DEFAULT_MAX_CHARS);
  if (!start) budget.addCut(intro, (left) => `[… ${formatNumber(left)} more characters of this list cut]`);
  else budget.add(`(continued: ${sessions.length - first} of ${sessions.length} sessions left)`);
  const omitted = emptyOmitted();
  const { from, to } = rangeInstants(range, tz);
  let stop: Cursor | undefined;
  let shownSessions = 0;
  for (let i = first; i < sessions.length && !stop; i++) {
    const summary = sessions[i]!;
    const offset = start && i === first ? start.o : 0;
    const heading =
      `## ${summary.id} · ${span(summary, tz)} · ${projectName(summary.cwd)} · "${oneLine(summary.title, 120)}"` +
      (offset > 0 ? ` (continued from message ${offset})` : '');
    if (!budget.add(heading)) {
      stop = { k: summary.id, o: offset };
      break;
    }
    shownSessions += 1;
    const clock = new Clock(tz);
    const header = await readHeader(logbook.dataDir, summary.body);
    if (!header) {
      budget.add('(its transcript is missing from the archive)');
      continue;
    }
    for await (const event of threadEvents(logbook.dataDir, summary.body, header)) {
      if (event.kind !== 'message' || event.thread !== MAIN_THREAD || event.index < offset) continue;
      const at = Date.parse(event.message.timestamp);
      if (!Number.isNaN(at) && (at < from || at >= to)) continue;
      const message = logbook.share
        ? logbook.share.session({ ...(header.session as Session), messages: [event.message], subagents: [] })
            .messages[0]!
        : event.message;
      const counted = { ...omitted };
      const block = messageBlock(message, event.index, clock, options, omitted);
      if (block === undefined) continue;
      const onlyBlock = budget.taken <= 2 && shownSessions === 1;
      const added = onlyBlock
        ? budget.addCut(block, (left) => `[… message cut at max_chars: ${formatNumber(left)} more characters]`)
        : budget.add(block);
      if (!added) {
        Object.assign(omitted, counted);
        stop = { k: summary.id, o: event.index };
        break;
      }
    }
  }
  const footer: string[] = [];
  if (stop) {
    const left = sessions.length - sessions.findIndex((s) => s.id === stop!.k);
    footer.push(
      `More: ${left} sessions not (fully) shown. Continue: ${tool} with the same arguments and cursor "${encodeCursor(stop)}"` +
        ' (or read one session with get_session).',
    );
  } else if (sessions.length > 0) footer.push('End of these conversations.');
  const note = omittedNote(omitted);
  if (note) footer.push(note);
  return textResult(budget.finish(footer.join('\n')), {
    sessions: sessions.length,
    shown_sessions: shownSessions,
    ...(stop ? { next_cursor: encodeCursor(stop) } : {}),
  });
}
