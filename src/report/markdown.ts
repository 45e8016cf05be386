import { splitSessionKey } from '../model/ids.ts';
import { sessionRoute } from '../model/routes.ts';
import { totalTokens } from '../stats/session-stats.ts';
import { PATTERN_LABELS, SOURCE_LABELS } from '../model/labels.ts';
import { changeLabel, formatNumber, minutesLabel } from '../util/format.ts';
import type { DayReport, ReportTotals, WeekReport } from './reports.ts';

/** Reports as Markdown, ready to paste into a daily report (日報) or a weekly review. */

export interface MarkdownOptions {
  /** Prefix for links to the site (`https://me.example/logbook` or `` for root-relative); no links when absent. */
  linkBase?: string;
}

const n = formatNumber;
const tokenSum = totalTokens;
const minutes = minutesLabel;
const change = changeLabel;

/** One line of prompt text: whitespace folded, long text cut, Markdown link syntax kept inert. */
function inline(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const cut = line.length > max ? `${line.slice(0, max - 1)}…` : line;
  return cut.replace(/([[\]<>])/g, '\\$1');
}

function link(label: string, path: string, options: MarkdownOptions): string {
  return options.linkBase === undefined ? label : `[${label}](${options.linkBase}${path})`;
}

function totalsLines(t: ReportTotals): string[] {
  return [
    `- Sessions: ${n(t.sessions)} · Prompts: ${n(t.prompts)} · Entries: ${n(t.entries)} · Tool uses: ${n(t.toolUses)}`,
    `- Active: about ${minutes(t.activeMinutes)} (15-minute slots with activity)`,
    `- Tokens: ${n(tokenSum(t.tokens))} (input ${n(t.tokens.input)}, output ${n(t.tokens.output)}, cache read ${n(t.tokens.cacheRead)}, cache write ${n(t.tokens.cacheCreation)})`,
  ];
}

function insightItems(report: { insights?: string[] }): string[] {
  return (report.insights ?? []).map((line) => `- ${line}`);
}

export function dayMarkdown(report: DayReport, options: MarkdownOptions = {}): string {
  const out = [`# ${report.day} (${report.weekday})`, '', ...totalsLines(report.totals), ...insightItems(report), ''];
  if (report.projects.length > 0) {
    out.push('## Projects', '');
    for (const project of report.projects) {
      out.push(`### ${project.name}`, '', `\`${project.cwd}\``, '');
      for (const s of project.sessions) {
        const title = link(
          inline(s.title, 120),
          `/${sessionRoute(s.source, splitSessionKey(s.key).sessionId)}`,
          options,
        );
        const details = [
          SOURCE_LABELS[s.source] ?? s.source,
          `${n(s.prompts)} prompts`,
          `${n(s.entries)} entries`,
          `${n(s.toolUses)} tool uses`,
          PATTERN_LABELS[s.pattern],
        ];
        out.push(`- ${s.start}–${s.end} ${title} (${details.join(', ')})`);
      }
      if (project.sessions.length === 0) out.push(`- ${n(project.prompts)} prompts (transcripts no longer on disk)`);
      out.push('');
    }
  }
  if (report.prompts.length > 0) {
    out.push('## Prompts', '');
    for (const p of report.prompts) out.push(`- ${p.time}${p.project ? ` [${p.project}]` : ''} ${inline(p.text)}`);
    out.push('');
  }
  if (report.toolUses.length > 0) {
    out.push('## Tool uses', '', report.toolUses.map(([name, count]) => `${name} ${n(count)}`).join(' · '), '');
  }
  out.push(`_Times in ${report.timeZone}._`, '');
  return out.join('\n');
}

export function weekMarkdown(report: WeekReport, options: MarkdownOptions = {}): string {
  const t = report.totals;
  const p = report.previous.totals;
  const out = [
    `# Week ${report.week} (${report.firstDay} – ${report.lastDay})`,
    '',
    ...totalsLines(t),
    ...insightItems(report),
    '',
  ];
  out.push(
    `## Compared with ${report.previous.week}`,
    '',
    '| | this week | previous | change |',
    '|---|---:|---:|---:|',
    `| Sessions | ${n(t.sessions)} | ${n(p.sessions)} | ${change(t.sessions, p.sessions)} |`,
    `| Prompts | ${n(t.prompts)} | ${n(p.prompts)} | ${change(t.prompts, p.prompts)} |`,
    `| Entries | ${n(t.entries)} | ${n(p.entries)} | ${change(t.entries, p.entries)} |`,
    `| Tool uses | ${n(t.toolUses)} | ${n(p.toolUses)} | ${change(t.toolUses, p.toolUses)} |`,
    `| Tokens | ${n(tokenSum(t.tokens))} | ${n(tokenSum(p.tokens))} | ${change(tokenSum(t.tokens), tokenSum(p.tokens))} |`,
    '',
    '## Days',
    '',
    '| Day | Sessions | Prompts | Entries | Tool uses | Active |',
    '|---|---:|---:|---:|---:|---:|',
  );
  for (const d of report.days) {
    const label =
      d.sessions + d.prompts > 0 ? link(`${d.day} ${d.weekday}`, `/days/${d.day}/`, options) : `${d.day} ${d.weekday}`;
    out.push(
      `| ${label} | ${n(d.sessions)} | ${n(d.prompts)} | ${n(d.entries)} | ${n(d.toolUses)} | ${minutes(d.activeMinutes)} |`,
    );
  }
  out.push('');
  if (report.projects.length > 0) {
    out.push(
      '## Projects',
      '',
      '| Project | Sessions | Prompts | Entries | Tool uses | Tokens |',
      '|---|---:|---:|---:|---:|---:|',
    );
    for (const pr of report.projects) {
      out.push(
        `| ${link(inline(pr.name, 60), `/projects/${pr.slug}/`, options)} | ${n(pr.sessions)} | ${n(pr.prompts)} | ${n(pr.entries)} | ${n(pr.toolUses)} | ${n(tokenSum(pr.tokens))} |`,
      );
    }
    out.push('');
  }
  if (report.toolUses.length > 0) {
    out.push('## Tool uses', '', report.toolUses.map(([name, count]) => `${name} ${n(count)}`).join(' · '), '');
  }
  out.push(
    `_Weeks start on ${report.weekStart === 'monday' ? 'Monday (ISO)' : 'Sunday'}; times in ${report.timeZone}._`,
    '',
  );
  return out.join('\n');
}
