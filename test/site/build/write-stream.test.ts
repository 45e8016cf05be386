import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeIfChanged, writeStreamIfChanged } from '../../../src/site/build/render-page.ts';
import { tempDir } from '../../helpers/paths.ts';

/** A stream of the text in pieces of `size` bytes, as an endpoint's response comes. */
function streamOf(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(text);
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(at, at + size)));
      at += size;
    },
  });
}

describe('writeStreamIfChanged (an endpoint streamed to the disk)', () => {
  it('writes a new file, leaves the same bytes untouched, replaces different, longer or shorter ones', async () => {
    const dir = await tempDir('write-stream');
    const file = path.join(dir, 'sessions', 'a.md');
    const text = '# セッション\n\n' + 'line of the session\n'.repeat(5000);

    expect(await writeStreamIfChanged(file, streamOf(text, 4096))).toBe(true);
    expect(await fs.readFile(file, 'utf8')).toBe(text);
    const before = (await fs.stat(file)).mtimeMs;

    await new Promise((r) => setTimeout(r, 20));
    expect(await writeStreamIfChanged(file, streamOf(text, 1000))).toBe(false);
    expect((await fs.stat(file)).mtimeMs).toBe(before);

    for (const changed of [text.replace('line of', 'LINE of'), `${text}one more\n`, text.slice(0, -7)]) {
      expect(await writeStreamIfChanged(file, streamOf(changed, 3000))).toBe(true);
      expect(await fs.readFile(file, 'utf8')).toBe(changed);
    }
    expect(await writeStreamIfChanged(file, streamOf(text.slice(0, -7), 3000), true)).toBe(true);
    // A response that fails halfway leaves the file as it was.
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(Buffer.from('# other')));
        controller.error(new Error('render failed'));
      },
    });
    await expect(writeStreamIfChanged(file, failing)).rejects.toThrow('render failed');
    expect(await fs.readFile(file, 'utf8')).toBe(text.slice(0, -7));
    // No temporary file is left beside it, written, unchanged or failed.
    expect(await fs.readdir(path.dirname(file))).toEqual(['a.md']);
  });

  it('makes the folders a file goes in, also after they were removed, and leaves nothing else', async () => {
    const dir = await tempDir('write-folders');
    const page = path.join(dir, 'sessions', 'codex', 'x', 'page', '2', 'index.html');
    const markdown = path.join(dir, 'sessions', 'codex', 'x.md.gz');
    expect(writeIfChanged(page, Buffer.from('<p>ページ</p>'))).toBe(true);
    expect(await writeStreamIfChanged(markdown, streamOf('# x\n', 2))).toBe(true);
    expect(await fs.readFile(page, 'utf8')).toBe('<p>ページ</p>');
    expect(await fs.readFile(markdown, 'utf8')).toBe('# x\n');
    // A later build in the same process, after the last one's folder was removed.
    await fs.rm(path.join(dir, 'sessions'), { recursive: true });
    expect(writeIfChanged(page, Buffer.from('<p>again</p>'))).toBe(true);
    expect(await writeStreamIfChanged(markdown, streamOf('# y\n', 3))).toBe(true);
    expect(await fs.readFile(page, 'utf8')).toBe('<p>again</p>');
    expect(await fs.readdir(path.join(dir, 'sessions', 'codex'))).toEqual(['x', 'x.md.gz']);
    expect(await fs.readdir(path.dirname(page))).toEqual(['index.html']);
  });
});
