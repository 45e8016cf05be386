import type { CollectOptions } from '../collect/collect.ts';
import type { SiteBuildOptions } from '../site/build/build.ts';

/** How progress is shown: drawn in place on a terminal, else one line per phase when it ends; quiet: not at all. */
export interface ProgressMode {
  tty: boolean;
  quiet: boolean;
  /** The clock in milliseconds (tests pass their own). */
  now?: () => number;
}

/** Where one phase stands: items done of total, and bytes when the items are files. */
export interface PhaseProgress {
  done: number;
  total: number;
  /** What one item is, after the count ("file": "1 of 1 file", "3 of 5 files"). */
  unit?: string;
  bytes?: { done: number; total: number };
}

/** A terminal line is redrawn at most this often, and at least this often while a phase runs. */
const REDRAW_MS = 100;
const TICK_MS = 1000;

/**
 * Progress on stderr for work in phases (each reports done of total). On a terminal: one line rewritten in
 * place, at most ten times a second: done of total, MB, elapsed and time left. Elsewhere (CI, pipes): one line
 * per phase when it ends. Quiet: nothing.
 */
export class ProgressWriter {
  private phase: string | undefined;
  private phaseStart = 0;
  private lastDraw = -Infinity;
  private drawn = false;
  /** Off a terminal: the phase's line is written (once, however often it is told it ended). */
  private reported = false;
  /** On a terminal, the line is drawn again every second while a phase runs, so its clock moves between
   * updates (a long file read first can keep them away for seconds). */
  private latest: PhaseProgress | undefined;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private readonly now: () => number;

  constructor(
    private readonly write: (text: string) => void,
    private readonly mode: ProgressMode,
  ) {
    this.now = mode.now ?? Date.now;
  }

  /** `reportAfterSeconds`: off a terminal, a phase that ended sooner is not reported (a step usually instant). */
  update(phase: string, progress: PhaseProgress, reportAfterSeconds = 0): void {
    if (this.mode.quiet) return;
    const now = this.now();
    if (phase !== this.phase) {
      this.phase = phase;
      this.phaseStart = now;
      this.lastDraw = -Infinity;
      this.reported = false;
    }
    const seconds = (now - this.phaseStart) / 1000;
    const finished = progress.done >= progress.total;
    if (!this.mode.tty) {
      if (finished && progress.total > 0 && seconds >= reportAfterSeconds && !this.reported) {
        this.reported = true;
        const bytes = progress.bytes ? `, ${size(progress.bytes.total)}` : '';
        this.write(
          `${phase}: ${progress.done} of ${progress.total}${unit(progress)}${bytes} (${seconds.toFixed(1)}s)\n`,
        );
      }
      return;
    }
    this.latest = { ...progress, ...(progress.bytes ? { bytes: { ...progress.bytes } } : {}) };
    if (finished) this.stopTicking();
    else this.ticker ??= setInterval(() => this.draw(), TICK_MS).unref();
    if (finished || now - this.lastDraw >= REDRAW_MS) this.draw();
  }

  /** Erases the line drawn in place: before other output, and at the end. */
  clear(): void {
    this.stopTicking();
    if (this.drawn) this.write('\r\u001b[2K');
    this.drawn = false;
  }

  private draw(): void {
    const progress = this.latest;
    if (!progress || this.phase === undefined) return;
    const now = this.now();
    this.lastDraw = now;
    const seconds = (now - this.phaseStart) / 1000;
    const bytes = progress.bytes ? `, ${sizeOf(progress.bytes.done, progress.bytes.total)}` : '';
    if (this.drawn) this.write('\r\u001b[2K');
    this.write(
      `${this.phase}: ${progress.done}/${progress.total}${unit(progress)}${bytes} (${seconds.toFixed(1)}s${timeLeft(progress, seconds)})`,
    );
    this.drawn = true;
  }

  private stopTicking(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }
}

function unit(progress: PhaseProgress): string {
  if (!progress.unit) return '';
  return ` ${progress.total === 1 ? progress.unit : `${progress.unit}s`}`;
}

/** ", about 12s left", from the bytes done when the items are files (sizes differ a lot), else the count. */
function timeLeft(progress: PhaseProgress, seconds: number): string {
  const [done, total] =
    progress.bytes && progress.bytes.total > 0
      ? [progress.bytes.done, progress.bytes.total]
      : [progress.done, progress.total];
  if (done <= 0 || done >= total) return '';
  return `, about ${Math.ceil((seconds / done) * (total - done))}s left`;
}

const MB = 1_000_000;

function size(bytes: number): string {
  return bytes < MB ? `${Math.ceil(bytes / 1000)} KB` : `${(bytes / MB).toFixed(1)} MB`;
}

/** `12.3/45.6 MB`, both in the total's unit. */
function sizeOf(done: number, total: number): string {
  return total < MB
    ? `${Math.ceil(done / 1000)}/${Math.ceil(total / 1000)} KB`
    : `${(done / MB).toFixed(1)}/${(total / MB).toFixed(1)} MB`;
}

type SiteProgress = Parameters<NonNullable<SiteBuildOptions['onProgress']>>[0];

const SITE_PHASES: Record<SiteProgress['phase'], string> = {
  compile: 'Compiling the page templates',
  pages: 'Rendering',
};

/** The site build's progress (template compilation is reported off a terminal only when it took a second). The
 * files rendered are counted in files, as the build's summary counts them. */
export function siteBuildProgress(writer: ProgressWriter): NonNullable<SiteBuildOptions['onProgress']> {
  return ({ phase, done, total }) =>
    writer.update(
      SITE_PHASES[phase],
      { done, total, ...(phase === 'pages' ? { unit: 'file' } : {}) },
      phase === 'compile' ? 1 : 0,
    );
}

/** A collect's progress: per source, the files it reads (new or changed) and their size. */
export function collectProgress(writer: ProgressWriter): NonNullable<CollectOptions['onProgress']> {
  return ({ label, done, total, bytes }) => writer.update(`Reading ${label}`, { done, total, unit: 'file', bytes });
}
