import { expect, it } from 'vitest';
import { RebuildQueue } from '../../../src/site/serve/watch.ts';

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('runs once for a burst of requests, once more for requests during a run, and nothing after it is stopped', async () => {
  let runs = 0;
  let endRun!: () => void;
  const queue = new RebuildQueue(async () => {
    runs += 1;
    await new Promise<void>((resolve) => (endRun = resolve));
  }, 20);
  for (let i = 0; i < 5; i++) queue.request();
  await expect.poll(() => runs).toBe(1);
  expect(queue.busy).toBe(true);
  queue.request();
  queue.request();
  await settle(60);
  endRun();
  await expect.poll(() => runs).toBe(2);
  // Stopped during the second run with a third queued: only the run in progress ends.
  queue.request();
  await settle(60);
  const stopped = queue.stop();
  endRun();
  await stopped;
  expect(queue.busy).toBe(false);
  queue.request();
  await settle(60);
  expect(runs).toBe(2);
});
