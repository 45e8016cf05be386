import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/util/worker-pool.ts';
import { tempDir } from '../helpers/paths.ts';

type Task = { op: 'times'; n: number } | { op: 'throw'; message: string } | { op: 'exit' } | { op: 'wait' };

// A real worker module, in plain JS (workers do not inherit the test's TypeScript hooks). Its handler is
// exported after a top-level await, as the shims that register tsx do.
const WORKER = `
import { workerData } from 'node:worker_threads';
await new Promise((resolve) => setTimeout(resolve, 10));
const handler = async (task) => {
  if (task.op === 'throw') throw new Error(task.message);
  if (task.op === 'exit') process.exit(3);
  if (task.op === 'wait') return new Promise(() => setInterval(() => {}, 1000));
  return task.n * workerData.factor;
};
export default handler;
`;

let dir: string;
const pools: WorkerPool<Task, number>[] = [];

function pool(threads: number, file = path.join(dir, 'worker.mjs')): WorkerPool<Task, number> {
  const made = new WorkerPool<Task, number>({ file, threads, workerData: { factor: 3 }, tasksPerWorker: 2 });
  pools.push(made);
  return made;
}

beforeAll(async () => {
  dir = await tempDir('worker-pool');
  await fs.writeFile(path.join(dir, 'worker.mjs'), WORKER);
  await fs.writeFile(path.join(dir, 'broken.mjs'), `throw new Error('cannot load');\nexport default () => 1;\n`);
});

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('WorkerPool', () => {
  it('runs tasks in workers, with their workerData', async () => {
    const workers = pool(2);
    expect(await Promise.all([1, 2, 3, 4, 5].map((n) => workers.run({ op: 'times', n })))).toEqual([3, 6, 9, 12, 15]);
  });

  it('rejects a task that throws with its message, and runs the next one', async () => {
    const workers = pool(1);
    await expect(workers.run({ op: 'throw', message: 'no such page' })).rejects.toThrow('no such page');
    expect(await workers.run({ op: 'times', n: 7 })).toBe(21);
  });

  it('rejects the task of a worker that exits, and runs the next ones in a new worker', async () => {
    const workers = pool(1);
    const [exited, beside] = await Promise.allSettled([
      workers.run({ op: 'exit' }),
      workers.run({ op: 'times', n: 1 }),
    ]);
    expect(exited.status).toBe('rejected');
    expect(String((exited as PromiseRejectedResult).reason)).toMatch(/exited with code: 3/);
    // The task running beside it on the same worker went down with it, or ran first: either way it settled.
    expect(beside.status === 'rejected' || beside.value === 3).toBe(true);
    expect(await Promise.all([workers.run({ op: 'times', n: 2 }), workers.run({ op: 'times', n: 3 })])).toEqual([6, 9]);
  });

  it('rejects the tasks of workers that cannot load their module, instead of keeping them waiting', async () => {
    const workers = pool(2, path.join(dir, 'broken.mjs'));
    const results = await Promise.allSettled([1, 2, 3].map((n) => workers.run({ op: 'times', n })));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    await expect(workers.run({ op: 'times', n: 4 })).rejects.toThrow('cannot load');
  });

  it('rejects what is still running when closed, and every task after', async () => {
    const workers = pool(1);
    const running = workers.run({ op: 'wait' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await workers.close();
    await expect(running).rejects.toThrow('closed');
    await expect(workers.run({ op: 'times', n: 1 })).rejects.toThrow('closed');
  });
});
