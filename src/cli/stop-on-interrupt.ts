/** Ctrl-C (or SIGTERM) as a promise, for commands that run until stopped; a second Ctrl-C exits at once. */
export function stopOnInterrupt(): { signal: Promise<void>; dispose(): void } {
  let resolve = () => {};
  const signal = new Promise<void>((r) => (resolve = r));
  let asked = false;
  const onSignal = () => {
    if (asked) process.exit(130);
    asked = true;
    resolve();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
