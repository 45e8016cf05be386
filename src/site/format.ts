import { tz } from '@date-fns/tz';
import { format } from 'date-fns';
import type { TokenUsage } from '../model/message.ts';
import type { ConversationPattern } from '../model/session.ts';

export const SOURCE_LABELS: Record<string, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'amazon-q': 'Amazon Q',
};

export const PATTERN_LABELS: Record<ConversationPattern, string> = {
  simple: 'simple',
  single_tool: 'single tool',
  multi_tool: 'multi tool',
  incomplete: 'incomplete',
};

export function formatNumber(n: number): string {
  return n.toLocaleString('en-US');
}

/** 1234 → "1.2k", 2_500_000 → "2.5M". */
export function compactNumber(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0)}M`;
}

export function totalTokens(t: TokenUsage): number {
  return t.input + t.output + t.cacheRead + t.cacheCreation;
}

export function tokenTitle(t: TokenUsage): string {
  return `input ${formatNumber(t.input)} · output ${formatNumber(t.output)} · cache read ${formatNumber(t.cacheRead)} · cache write ${formatNumber(t.cacheCreation)}`;
}

export function formatInZone(iso: string, pattern: string, timeZone: string): string {
  if (!iso) return '';
  return format(new Date(iso), pattern, { in: tz(timeZone) });
}

export function weekdayOf(day: string): string {
  return format(new Date(`${day}T12:00:00Z`), 'EEE', { in: tz('UTC') });
}

/** Links inside the site, respecting Astro's `base`. */
export function href(path: string): string {
  const base = import.meta.env.BASE_URL.replace(/\/$/, '');
  return `${base}${path}`;
}

export function sessionHref(sessionKey: string): string {
  return href(`/sessions/${sessionKey}/`);
}

export function duration(fromIso: string, toIso: string): string {
  const ms = Date.parse(toIso) - Date.parse(fromIso);
  if (!Number.isFinite(ms) || ms < 0) return '';
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return '<1 min';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min`;
}
