/** Axis ticks for the charts: a round top value at or above `max`, split into `parts` equal steps. */
export function niceTicks(max: number, parts = 4, integer = true): number[] {
  if (max <= 0) return [0, 1];
  const rough = max / parts;
  const power = 10 ** Math.floor(Math.log10(rough));
  const nice = ([1, 2, 2.5, 5, 10].find((m) => m * power >= rough) ?? 10) * power;
  // Counts have no half steps: 0 1 2 3, not 0 0.5 1 1.5.
  const step = integer ? Math.max(1, Math.round(nice) === nice ? nice : Math.ceil(nice)) : nice;
  const ticks: number[] = [];
  for (let v = 0; v < max + step / 2 && ticks.length <= parts + 1; v += step) ticks.push(Math.round(v * 1e6) / 1e6);
  if (ticks[ticks.length - 1]! < max) ticks.push(ticks[ticks.length - 1]! + step);
  return ticks;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-03-01` → `Mar`, or `Mar 2026` with the year. */
export function monthLabel(day: string, withYear = false): string {
  const month = MONTHS[Number(day.slice(5, 7)) - 1] ?? day.slice(5, 7);
  return withYear ? `${month} ${day.slice(0, 4)}` : month;
}
