/** Pure number formatting shared by the pages and the Markdown reports. */

export function formatNumber(n: number): string {
  // Whole numbers by hand: the first toLocaleString of a process starts ICU's number formatter (~20 ms), which
  // a collect would pay for one summary line.
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 || Object.is(n, -0) ? `-${out}` : out;
}

/** 1234 → "1.2k", 2_500_000 → "2.5M". */
export function compactNumber(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0)}M`;
}

/** 45 → "45 min", 135 → "2 h 15 min". */
export function minutesLabel(total: number): string {
  if (total < 60) return `${total} min`;
  return `${Math.floor(total / 60)} h ${String(total % 60).padStart(2, '0')} min`;
}

/** Change from `before` to `now` as a signed percentage ("+25%"), "new" from zero. */
export function changeLabel(now: number, before: number): string {
  if (before === 0) return now === 0 ? '±0' : 'new';
  const pct = Math.round(((now - before) / before) * 100);
  return `${pct >= 0 ? '+' : ''}${pct}%`;
}

const IRREGULAR: Record<string, string> = { entry: 'entries', day: 'days', Entry: 'Entries' };

/** "1 prompt", "2 prompts", "1 entry", "1,234 entries". */
export function countLabel(n: number, singular: string, plural?: string): string {
  const noun = n === 1 ? singular : (plural ?? IRREGULAR[singular] ?? `${singular}s`);
  return `${formatNumber(n)} ${noun}`;
}
