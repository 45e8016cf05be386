import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SOURCE_LABELS } from '../../model/labels.ts';
import { projectSlug } from '../../model/project.ts';
import { dayMarkdown, weekMarkdown } from '../../report/markdown.ts';
import { dayReport, weekReport, type DayReport } from '../../report/reports.ts';
import { computeStats, type StatsJson } from '../../stats/aggregate.ts';
import { buildDayIndexes } from '../../stats/indexes.ts';
import { totalTokens } from '../../stats/session-stats.ts';
import { formatNumber, minutesLabel } from '../../util/format.ts';
import { inRange, parseDayInput, parseRange, parseWeekInput } from '../dates.ts';
import { textResult } from '../errors.ts';
import type { Logbook } from '../logbook.ts';
import { requireProjects } from '../lookup.ts';
import { lastActiveBefore } from '../describe.ts';
import { day, DEFAULT_MAX_CHARS, maxChars, project, safely, source, registerTool } from '../tool-kit.ts';

const format = z
  .enum(['md', 'json'])
  .optional()
  .describe('md: Markdown ready to paste into a report (default); json: the same figures as data.');

/** Cuts text at a line boundary to fit `max`, saying so. */
export function fitLines(text: string, max: number, hint: string): string {
  if (text.length <= max) return text;
  const note = (left: number) => `\n[… cut at max_chars: ${formatNumber(left)} more characters. ${hint}]`;
  let end = text.lastIndexOf('\n', max - note(text.length).length);
  if (end <= 0) end = Math.max(0, max - note(text.length).length);
  return `${text.slice(0, end)}${note(text.length - end)}`;
}

export function registerReportTools(server: McpServer, logbook: Logbook, log: (line: string) => void): void {
  registerTool(
    server,
    'day_report',
    {
      title: 'Day report',
      description:
        "A day's report over every assistant: totals (sessions, prompts, responses, tool uses, active time, tokens), " +
        'the sessions per project with their times, every prompt typed that day, and the tools used. The same report as ' +
        '`agent-logbook report --day`. A good start for a daily report (日報); get_history_by_date has the conversations.',
      inputSchema: { date: day('The day (default today)'), format, max_chars: maxChars },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    safely(async (args) => {
      const snapshot = await logbook.snapshot();
      const tz = logbook.timeZone;
      const date = parseDayInput(args.date ?? 'today', tz);
      const key = `day:${date}`;
      const report = (snapshot.memo.get(key) as DayReport | undefined) ?? dayReport(snapshot.days, date, tz);
      snapshot.memo.set(key, report);
      const max = args.max_chars ?? DEFAULT_MAX_CHARS;
      const sessions = report.projects.flatMap((p) => p.sessions.map((s) => s.key));
      // A busy day has thousands of prompts: the data returned is held to the same budget as the text.
      const fitted = fitDayReport(report, max);
      const text =
        args.format === 'json'
          ? `${JSON.stringify(fitted, null, 2)}\n`
          : `${dayMarkdown(report)}${sessions.length ? `\nSession ids (for get_session): ${sessions.join(', ')}\n` : ''}` +
            (report.totals.sessions + report.prompts.length === 0
              ? `\nNo activity on ${date}.${lastActiveBefore(snapshot.days, date)}\n`
              : '');
      return textResult(fitLines(text, max, 'get_history_by_date has the same day page by page.'), {
        report: fitted,
      });
    }, log),
  );

  registerTool(
    server,
    'week_report',
    {
      title: 'Week report',
      description:
        "A week's report: totals compared with the week before, a row per day, the projects worked on and the tools " +
        'used. The same report as `agent-logbook report --week`.',
      inputSchema: {
        week: z.string().optional().describe('this (default), last, or an ISO week YYYY-Www such as 2026-W10.'),
        format,
        max_chars: maxChars,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    safely(async (args) => {
      const snapshot = await logbook.snapshot();
      const tz = logbook.timeZone;
      const week = parseWeekInput(args.week ?? 'this', tz, logbook.weekStart);
      const report = weekReport(snapshot.days, week, tz, logbook.weekStart);
      const text = args.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : weekMarkdown(report);
      return textResult(fitLines(text, args.max_chars ?? DEFAULT_MAX_CHARS, 'Ask with a larger max_chars.'), {
        report,
      });
    }, log),
  );

  registerTool(
    server,
    'stats',
    {
      title: 'Statistics',
      description:
        "Usage statistics (the figures of the site's stats.json): sessions per assistant, conversation patterns " +
        '(simple / single tool / multi tool / incomplete), responses per conversation, tool uses and error rates by ' +
        'tool, tokens, and per-day activity. Optionally for some days, one project or one assistant.',
      inputSchema: {
        since: day('First day'),
        until: day('Last day'),
        project,
        source,
        format: z.enum(['text', 'json']).optional().describe('text: a readable summary (default); json: every figure.'),
        max_chars: maxChars,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    safely(async (args) => {
      const snapshot = await logbook.snapshot();
      const tz = logbook.timeZone;
      const range = parseRange(args, tz);
      let summaries = snapshot.summaries;
      let history = snapshot.history;
      if (args.source) {
        summaries = summaries.filter((s) => s.source === args.source);
        history = history.filter((p) => p.source === args.source);
      }
      if (args.project) {
        const projects = requireProjects(snapshot, args.project);
        const slugs = new Set(projects.map((p) => p.slug));
        const dirs = new Set(projects.map((p) => p.cwd));
        summaries = summaries.filter((s) => slugs.has(s.project || projectSlug(s.cwd)));
        history = history.filter((p) => p.project !== undefined && dirs.has(p.project));
      }
      const filtered = args.source || args.project ? buildDayIndexes(summaries, history, tz) : snapshot.days;
      const days = new Map([...filtered].filter(([d]) => inRange(d, range)));
      const keep = new Set([...days.values()].flatMap((d) => d.sessions.map((s) => s.summary.id)));
      const sessions = range.since || range.until ? summaries.filter((s) => keep.has(s.id)) : summaries;
      const stats = computeStats(sessions, days, tz);
      const scope = [
        range.since || range.until ? `${range.since ?? 'start'} to ${range.until ?? 'today'}` : 'all days',
        args.project ? `project ${args.project}` : '',
        args.source ? (SOURCE_LABELS[args.source] ?? args.source) : 'all assistants',
      ].filter(Boolean);
      const max = args.max_chars ?? DEFAULT_MAX_CHARS;
      const fitted = fitStats(stats, max);
      const text = args.format === 'json' ? `${JSON.stringify(fitted, null, 2)}\n` : statsText(stats, scope.join(', '));
      return textResult(fitLines(text, max, 'Ask with a larger max_chars.'), {
        stats: fitted as unknown as Record<string, unknown>,
      });
    }, log),
  );
}

/** The report with as many of its prompts as keep its JSON (pretty-printed) within `max` characters. */
export function fitDayReport(report: DayReport, max: number): DayReport & { promptsLeftOut?: number } {
  const size = (r: unknown) => JSON.stringify(r, null, 2).length + 1;
  if (size(report) <= max) return report;
  const withPrompts = (n: number) => ({
    ...report,
    prompts: report.prompts.slice(0, n),
    promptsLeftOut: report.prompts.length - n,
  });
  // Each prompt's share of the text, as it is indented inside the report; then exact checks from there.
  let used = size(withPrompts(0));
  let n = 0;
  for (const prompt of report.prompts) {
    const lines = JSON.stringify(prompt, null, 2).split('\n');
    used += lines.reduce((sum, line) => sum + line.length + 5, 0);
    if (used > max) break;
    n += 1;
  }
  while (n > 0 && size(withPrompts(n)) > max) n -= 1;
  return withPrompts(n);
}

/** The figures within `max` characters of JSON: the per-day tables go first when they do not fit. */
export function fitStats(stats: StatsJson, max: number): StatsJson & { perDayLeftOut?: string } {
  const size = (s: unknown) => JSON.stringify(s, null, 2).length + 1;
  if (size(stats) <= max) return stats;
  return {
    ...stats,
    tokensByDay: {},
    toolUsesByDay: {},
    days: {},
    perDayLeftOut:
      'tokensByDay, toolUsesByDay and days were left out to fit max_chars: ask for fewer days (since/until) or a larger max_chars',
  };
}

function statsText(stats: StatsJson, scope: string): string {
  const n = formatNumber;
  const days = Object.entries(stats.days);
  const active = days.filter(([, d]) => d.sessions + d.prompts > 0);
  const minutes = days.reduce((sum, [, d]) => sum + d.activeMinutes, 0);
  const t = stats.tokens.total;
  const top = Object.entries(stats.toolUses.byName).slice(0, 12);
  const lines = [
    `# Statistics (${scope}; days in ${stats.timeZone})`,
    '',
    `- Sessions: ${n(stats.sessions.total)} (${Object.entries(stats.sessions.bySource)
      .map(([s, c]) => `${SOURCE_LABELS[s] ?? s} ${n(c)}`)
      .join(', ')})`,
    `- Active days: ${n(active.length)}${active.length ? ` (${active[0]![0]} to ${active[active.length - 1]![0]})` : ''}, about ${minutesLabel(minutes)} of activity`,
    `- Patterns: ${Object.entries(stats.patterns)
      .map(
        ([p, c]) =>
          `${p} ${n(c)} (${Math.round((stats.patternShares[p as keyof typeof stats.patternShares] ?? 0) * 100)}%)`,
      )
      .join(', ')}`,
    `- Responses per conversation: median ${stats.entriesPerConversation.median}, mean ${stats.entriesPerConversation.mean.toFixed(1)}, max ${n(stats.entriesPerConversation.max)}`,
    `- Tool uses: ${n(stats.toolUses.total)}${top.length ? `; most used: ${top.map(([name, c]) => `${name} ${n(c)}`).join(', ')}` : ''}`,
    `- Tokens: ${n(totalTokens(t))} (input ${n(t.input)}, output ${n(t.output)}, cache read ${n(t.cacheRead)}, cache write ${n(t.cacheCreation)})`,
  ];
  const errors = Object.entries(stats.toolUses.errorRateByName)
    .filter(([, rate]) => rate > 0)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 8);
  if (errors.length)
    lines.push(`- Tool error rates: ${errors.map(([name, rate]) => `${name} ${Math.round(rate * 100)}%`).join(', ')}`);
  const busiest = [...active].sort(([, a], [, b]) => b.entries - a.entries).slice(0, 5);
  if (busiest.length)
    lines.push(
      `- Busiest days: ${busiest.map(([d, v]) => `${d} (${n(v.sessions)} sessions, ${n(v.prompts)} prompts)`).join(', ')}`,
    );
  lines.push('', 'format: "json" gives every figure, per day and per tool.');
  return `${lines.join('\n')}\n`;
}
