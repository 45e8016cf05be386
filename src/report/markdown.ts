import { PATTERN_LABELS, SOURCE_LABELS } from '../model/labels.ts';
import { totalTokens } from '../stats/session-stats.ts';
import { changeLabel, countLabel, formatNumber, minutesLabel } from '../util/format.ts';
import { sessionSpan } from './time-span.ts';
import type { DayReport, PeriodReport, ReportProject, ReportSession, ReportTotals } from './reports.ts';

/**
 * Reports as Markdown to paste into a daily report (日報), a weekly review, Slack, Notion, Confluence or a
 * GitHub issue: headings, bullet lists and links only (no tables, no HTML), so every one of them shows it.
 */

export interface MarkdownOptions {
  /** Prefix for links to the site (`https://me.example/logbook` or `` for root-relative); no links when absent. */
  linkBase?: string;
}

const n = formatNumber;
/** Prompts listed per session in a week or longer report; the rest are counted. */
const PROMPTS_PER_SESSION_LONG = 5;
const FILES_PER_SESSION = 12;

/** One line of text: whitespace folded, long text cut, Markdown and HTML syntax kept inert. */
function inline(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const cut = line.length > max ? `${line.slice(0, max - 1)}…` : line;
  return cut.replace(/([[\]<>])/g, '\\$1');
}

function code(text: string): string {
  const clean = text.replace(/\s+/g, ' ');
  return clean.includes('`') ? `\`\` ${clean} \`\`` : `\`${clean}\``;
}

function link(label: string, path: string, options: MarkdownOptions): string {
  return options.linkBase === undefined ? label : `[${label}](${options.linkBase}${path})`;
}

function tokensLine(t: ReportTotals): string {
  if (totalTokens(t.tokens) === 0) return '- Tokens: none recorded (Amazon Q and older Codex logs record none)';
  return `- Tokens: ${n(totalTokens(t.tokens))} (input ${n(t.tokens.input)}, output ${n(t.tokens.output)}, cache read ${n(t.tokens.cacheRead)}, cache write ${n(t.tokens.cacheCreation)})`;
}

function totalsLine(t: ReportTotals): string {
  return `- ${[
    countLabel(t.sessions, 'session'),
    countLabel(t.prompts, 'prompt'),
    countLabel(t.entries, 'entry'),
    countLabel(t.toolUses, 'tool use'),
  ].join(' · ')} · about ${minutesLabel(t.activeMinutes)} active`;
}

function toolsText(tools: [string, number][], max = 6): string {
  const shown = tools.slice(0, max).map(([name, count]) => `${name} ${n(count)}`);
  if (tools.length > max) shown.push(`${tools.length - max} more`);
  return shown.join(', ');
}

function sessionLines(s: ReportSession, options: MarkdownOptions, long: boolean, timeZone: string): string[] {
  const when = sessionSpan(s, timeZone, long);
  const title = link(inline(s.title || '(untitled)', 120), s.path, options);
  const where = [SOURCE_LABELS[s.source] ?? s.source, s.gitBranch ? `branch ${code(s.gitBranch)}` : undefined]
    .filter(Boolean)
    .join(', ');
  const out = [`- **${when}** ${title} (${minutesLabel(s.activeMinutes)} active, ${where})`];
  const facts = [
    countLabel(s.prompts, 'prompt'),
    countLabel(s.entries, 'entry'),
    `${countLabel(s.toolUses, 'tool use')}${s.tools.length > 0 ? ` (${toolsText(s.tools)})` : ''}`,
  ];
  const tokens = totalTokens(s.tokens);
  if (tokens > 0) facts.push(countLabel(tokens, 'token'));
  facts.push(PATTERN_LABELS[s.pattern]);
  if (s.archived) facts.push('transcript deleted at the source, kept in the archive');
  out.push(`  - ${facts.join(' · ')}`);
  if (s.worktree) out.push(`  - In ${code(s.worktree)}`);
  if (s.promptLines.length > 0) {
    const max = long ? PROMPTS_PER_SESSION_LONG : s.promptLines.length;
    out.push('  - Asked:');
    for (const p of s.promptLines.slice(0, max)) {
      out.push(`    - ${long && p.day !== s.day ? `${p.day.slice(5)} ` : ''}${p.time} ${inline(p.text)}`);
    }
    if (s.promptLines.length > max) out.push(`    - … and ${countLabel(s.promptLines.length - max, 'more prompt')}`);
  }
  if (s.filesEdited.length > 0) {
    const shown = s.filesEdited
      .slice(0, FILES_PER_SESSION)
      .map(([file, edits]) => `${code(file)}${edits > 1 ? ` (${edits} edits)` : ''}`);
    if (s.filesEdited.length > FILES_PER_SESSION) shown.push(`and ${s.filesEdited.length - FILES_PER_SESSION} more`);
    out.push(`  - Changed: ${shown.join(', ')}`);
  }
  return out;
}

function projectLines(p: ReportProject, options: MarkdownOptions, long: boolean, timeZone: string): string[] {
  const name = inline(p.name, 80);
  const out = [`### ${p.hasPage ? link(name, `/projects/${p.slug}/`, options) : name}`, ''];
  const t = p.totals;
  const facts = [countLabel(t.sessions, 'session'), countLabel(t.prompts, 'prompt')];
  if (t.activeMinutes > 0) facts.push(`about ${minutesLabel(t.activeMinutes)} active`);
  out.push([...(p.cwd ? [code(p.cwd)] : []), ...facts].join(' · '), '');
  for (const s of p.sessions) out.push(...sessionLines(s, options, long, timeZone));
  if (p.historyOnlyPrompts.length > 0) {
    out.push(`- Prompts whose transcripts are gone (${n(p.historyOnlyPrompts.length)}):`);
    for (const q of p.historyOnlyPrompts.slice(0, long ? PROMPTS_PER_SESSION_LONG : undefined)) {
      out.push(`  - ${long ? `${q.day.slice(5)} ` : ''}${q.time} ${inline(q.text)}`);
    }
    if (long && p.historyOnlyPrompts.length > PROMPTS_PER_SESSION_LONG) {
      out.push(`  - … and ${countLabel(p.historyOnlyPrompts.length - PROMPTS_PER_SESSION_LONG, 'more prompt')}`);
    }
  }
  out.push('');
  return out;
}

function insightItems(report: { insights?: string[] }): string[] {
  return (report.insights ?? []).map((line) => `- ${line}`);
}

export function dayMarkdown(report: DayReport, options: MarkdownOptions = {}): string {
  const t = report.totals;
  const out = [`# ${report.day} (${report.weekday})`, '', totalsLine(t), tokensLine(t)];
  if (report.filesEdited > 0) out.push(`- Files changed: ${n(report.filesEdited)}`);
  out.push(...insightItems(report), '');
  if (report.projects.length > 0) {
    out.push('## Projects', '');
    for (const project of report.projects) out.push(...projectLines(project, options, false, report.timeZone));
  } else {
    out.push('No sessions or prompts on this day.', '');
  }
  if (report.toolUses.length > 0) {
    out.push('## Tool uses', '', report.toolUses.map(([name, count]) => `${name} ${n(count)}`).join(' · '), '');
  }
  out.push(`_Times in ${report.timeZone}._`, '');
  return out.join('\n');
}

export function periodMarkdown(report: PeriodReport, options: MarkdownOptions = {}): string {
  const t = report.totals;
  const p = report.previous.totals;
  const out = [`# ${report.title}`, '', totalsLine(t), tokensLine(t)];
  if (report.filesEdited > 0) out.push(`- Files changed: ${n(report.filesEdited)}`);
  out.push(...insightItems(report));
  const compare = (label: string, now: number, before: number) => `${label} ${changeLabel(now, before)}`;
  const before = p.sessions + p.prompts + p.entries > 0;
  out.push(
    before
      ? `- Compared with ${report.previous.label}: ${[
          compare('sessions', t.sessions, p.sessions),
          compare('prompts', t.prompts, p.prompts),
          compare('entries', t.entries, p.entries),
          compare('tool uses', t.toolUses, p.toolUses),
          compare('tokens', totalTokens(t.tokens), totalTokens(p.tokens)),
        ].join(', ')}`
      : `- Nothing recorded in ${report.previous.label}`,
    '',
  );
  if (report.projects.length > 0) {
    out.push('## Top projects', '');
    for (const pr of report.projects.slice(0, 5)) {
      const files = new Set(pr.sessions.flatMap((s) => s.filesEdited.map(([f]) => f))).size;
      const facts = [countLabel(pr.totals.sessions, 'session'), countLabel(pr.totals.prompts, 'prompt')];
      if (pr.totals.activeMinutes > 0) facts.push(`about ${minutesLabel(pr.totals.activeMinutes)} active`);
      if (files > 0) facts.push(countLabel(files, 'file') + ' changed');
      const name = inline(pr.name, 60);
      out.push(`- ${pr.hasPage ? link(name, `/projects/${pr.slug}/`, options) : name}: ${facts.join(', ')}`);
    }
    if (report.projects.length > 5) out.push(`- … and ${countLabel(report.projects.length - 5, 'more project')}`);
    out.push('');
  }
  out.push('## Days', '');
  const quiet: string[] = [];
  for (const d of report.days) {
    if (d.sessions + d.prompts === 0) {
      quiet.push(`${d.weekday} ${d.day.slice(5)}`);
      continue;
    }
    const label = link(`${d.weekday} ${d.day}`, `/days/${d.day}/`, options);
    out.push(
      `- ${label}: ${[countLabel(d.sessions, 'session'), countLabel(d.prompts, 'prompt'), countLabel(d.entries, 'entry'), countLabel(d.toolUses, 'tool use')].join(', ')}, about ${minutesLabel(d.activeMinutes)} active`,
    );
  }
  if (quiet.length > 0) out.push(`- No activity: ${quiet.join(', ')}`);
  out.push('');
  if (report.projects.length > 0) {
    out.push('## Projects', '');
    for (const project of report.projects) out.push(...projectLines(project, options, true, report.timeZone));
  }
  if (report.toolUses.length > 0) {
    out.push('## Tool uses', '', report.toolUses.map(([name, count]) => `${name} ${n(count)}`).join(' · '), '');
  }
  out.push(
    `_${report.kind === 'week' ? `Weeks start on ${report.weekStart === 'monday' ? 'Monday (ISO)' : 'Sunday'}; t` : 'T'}imes in ${report.timeZone}._`,
    '',
  );
  return out.join('\n');
}

/** @deprecated: periodMarkdown. */
export const weekMarkdown = periodMarkdown;
