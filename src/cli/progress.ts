import type { SiteBuildOptions } from '../site-build/build.ts';

type Progress = Parameters<NonNullable<SiteBuildOptions['onProgress']>>[0];

const PHASES: Record<Progress['phase'], string> = { compile: 'Compiling the page templates', pages: 'Pages' };

/**
 * Build progress on stderr. On a terminal: one line rewritten in place (done of total, elapsed, ETA);
 * elsewhere (CI, pipes): one line per phase when it ends; quiet: nothing.
 */
export function buildProgress(write: (text: string) => void, mode: { tty: boolean; quiet: boolean }) {
  let phase: Progress['phase'] | undefined;
  let phaseStart = Date.now();
  let lastDraw = 0;
  let drawn = false;
  const clear = () => {
    if (drawn) write('\r\u001b[2K');
    drawn = false;
  };
  const onProgress = (progress: Progress) => {
    if (mode.quiet) return;
    const now = Date.now();
    if (progress.phase !== phase) {
      phase = progress.phase;
      phaseStart = now;
    }
    const seconds = (now - phaseStart) / 1000;
    const finished = progress.done === progress.total;
    if (!mode.tty) {
      if (finished && progress.total > 0 && (phase === 'pages' || seconds >= 1)) {
        write(`${PHASES[phase]}: ${progress.done} of ${progress.total} (${seconds.toFixed(1)}s)\n`);
      }
      return;
    }
    if (!finished && now - lastDraw < 100) return;
    lastDraw = now;
    const eta =
      progress.done > 0 && !finished
        ? `, about ${Math.ceil((seconds / progress.done) * (progress.total - progress.done))}s left`
        : '';
    clear();
    write(`${PHASES[phase]}: ${progress.done}/${progress.total} (${seconds.toFixed(1)}s${eta})`);
    drawn = true;
  };
  return { onProgress, done: clear };
}
