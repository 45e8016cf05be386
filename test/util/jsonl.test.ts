import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { type JsonlOptions, type JsonlRecord, readJsonl, readJsonlSync } from '../../src/util/jsonl.ts';
import type { CollectWarning } from '../../src/util/warnings.ts';
import { tempDir } from '../helpers/paths.ts';

/** The streamed reader and the synchronous one: the same records and warnings from the same bytes. */
const READERS: [string, (file: string, options?: JsonlOptions) => AsyncIterable<JsonlRecord>][] = [
  ['readJsonl', readJsonl],
  [
    'readJsonlSync',
    async function* (file, options) {
      yield* readJsonlSync(file, options);
    },
  ],
];

describe.each(READERS)('%s', (_name, readJsonl) => {
  async function readAll(content: Buffer | string) {
    const file = path.join(await tempDir('jsonl'), 'f.jsonl');
    await fs.writeFile(file, content);
    const warnings: CollectWarning[] = [];
    const records = [];
    for await (const r of readJsonl(file, { onWarning: (w) => warnings.push(w) })) records.push(r);
    return { file, records, warnings };
  }

  it('yields each line with its 1-based number and byte range', async () => {
    const { records, warnings } = await readAll('{"a":1}\n\n{"b":2}\n');
    expect(records.map((r) => [r.line, r.value, r.start, r.end])).toEqual([
      [1, { a: 1 }, 0, 8],
      [3, { b: 2 }, 9, 17],
    ]);
    expect(warnings).toEqual([]);
  });

  it('accepts CRLF endings and a leading BOM', async () => {
    const { records } = await readAll('\uFEFF{"a":1}\r\n{"b":"x"}\r\n');
    expect(records.map((r) => r.value)).toEqual([{ a: 1 }, { b: 'x' }]);
  });

  it('warns about an invalid line and a truncated last line, naming the line, and keeps the rest', async () => {
    const { file, records, warnings } = await readAll('{"a":1}\n{not json\n{"b":2}\n{"c":');
    expect(records.map((r) => r.value)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatchObject({ file, line: 2 });
    expect(warnings[0]!.message).toMatch(/invalid JSON/);
    expect(warnings[1]).toMatchObject({ file, line: 4 });
    expect(warnings[1]!.message).toMatch(/truncated last line/);
  });

  it('repairs invalid UTF-8 and lone surrogates with a warning', async () => {
    const bad = Buffer.concat([Buffer.from('{"out":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}\n')]);
    const lone = Buffer.from('{"t":"x\\ud83d"}\n');
    const { records, warnings } = await readAll(Buffer.concat([bad, lone]));
    expect(records[0]!.value).toEqual({ out: 'a\uFFFD\uFFFDb' });
    expect(records[1]!.value).toEqual({ t: 'x\uFFFD' });
    expect(warnings.map((w) => [w.line, w.message.split(',')[0]])).toEqual([
      [1, 'invalid UTF-8'],
      [2, 'lone UTF-16 surrogate in a string'],
    ]);
  });

  it('reassembles a line much longer than one read chunk', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024 + 17);
    const { records } = await readAll(`{"n":1}\n{"big":"${big}"}\n{"n":3}\n`);
    expect(records).toHaveLength(3);
    expect((records[1]!.value as { big: string }).big.length).toBe(big.length);
    expect(records[2]!.line).toBe(3);
  });

  it('resumes from a byte offset with the right line numbers', async () => {
    const file = path.join(await tempDir('jsonl'), 'f.jsonl');
    await fs.writeFile(file, '{"a":1}\n{"b":2}\n{"c":3}\n');
    const out = [];
    for await (const r of readJsonl(file, { start: 8, firstLine: 2 })) out.push([r.line, r.value]);
    expect(out).toEqual([
      [2, { b: 2 }],
      [3, { c: 3 }],
    ]);
  });

  it('reads in chunks from an offset to the end of a file that grows while it is read, and closes it', async () => {
    const file = path.join(await tempDir('jsonl'), 'grows.jsonl');
    const line = (i: number) => `${JSON.stringify({ i, pad: 'x'.repeat(i % 7) })}\n`;
    await fs.writeFile(file, Array.from({ length: 20 }, (_, i) => line(i)).join(''));
    const start = Buffer.byteLength(line(0) + line(1));
    const seen: number[] = [];
    for await (const r of readJsonl(file, { start, firstLine: 3, chunkSize: 16 })) {
      seen.push((r.value as { i: number }).i);
      if (seen.length === 1) await fs.appendFile(file, Array.from({ length: 30 }, (_, i) => line(20 + i)).join(''));
    }
    expect(seen).toEqual(Array.from({ length: 48 }, (_, i) => i + 2));
    const fds = async () => (await fs.readdir('/proc/self/fd')).length;
    const open = await fds();
    for await (const _ of readJsonl(file, { chunkSize: 16 })) break;
    expect(await fds()).toBe(open);
  });
});

describe('readJsonlSync', () => {
  it('refuses a FIFO put where a file was expected, without blocking', async () => {
    const fifo = path.join(await tempDir('jsonl'), 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    expect(() => [...readJsonlSync(fifo)]).toThrow(expect.objectContaining({ code: 'ENOTREGULAR' }));
  });
});
