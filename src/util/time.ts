/** Times outside these bounds are not real times of a conversation with a coding assistant (a corrupt or
 * hostile record, e.g. `1e20` ms): they are ignored with a warning instead of reaching calendars and pages. */
export const EARLIEST_TIME_MS = Date.UTC(2000, 0, 1);
export const LATEST_TIME_MS = Date.UTC(2100, 0, 1);

export function isSaneTimeMs(ms: number): boolean {
  return Number.isFinite(ms) && ms >= EARLIEST_TIME_MS && ms < LATEST_TIME_MS;
}

/** An ISO time from epoch milliseconds, or undefined when it is not a number in the sane range. */
export function saneIsoFromMs(ms: unknown): string | undefined {
  return typeof ms === 'number' && isSaneTimeMs(ms) ? new Date(ms).toISOString() : undefined;
}

/** An ISO time from a date string, or undefined when it does not parse or lies outside the sane range. */
export function saneIsoFromText(text: unknown): string | undefined {
  if (typeof text !== 'string' || !text) return undefined;
  return saneIsoFromMs(Date.parse(text));
}

/** Whether a value reads as a time but lies outside the sane range (worth a warning). */
export function isOutOfRangeTime(value: unknown): boolean {
  const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
  return !Number.isNaN(ms) && !isSaneTimeMs(ms);
}

export const TIME_RANGE_TEXT = 'outside 2000–2100';
