import { openRegular } from '../../util/fs.ts';
import { type JsonlOptions, type JsonlRecord, readJsonl, readJsonlChunks } from '../../util/jsonl.ts';
import { importModule } from '../../util/import-module.ts';

/** Decodes a zstd file as a stream of decompressed chunks (Node 20 has no zstd in `node:zlib`). */
export async function* zstdChunks(file: string, chunkSize = 1 << 20): AsyncGenerator<Buffer> {
  // Imported here: most homes have no compressed rollout, and a warm collect reads none.
  const { Decompress } = await importModule<typeof import('fzstd')>('fzstd');
  const stream = (await openRegular(file)).createReadStream({ highWaterMark: chunkSize });
  let out: Buffer[] = [];
  // The decoder may reuse its output buffer, so every chunk is copied before it is handed on.
  const decoder = new Decompress((data) => {
    if (data.length > 0) out.push(Buffer.from(data));
  });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      decoder.push(chunk);
      if (out.length > 0) {
        const ready = out;
        out = [];
        yield* ready;
      }
    }
    decoder.push(new Uint8Array(0), true);
    yield* out;
  } finally {
    stream.destroy();
  }
}

/** The lines of a rollout file, `.jsonl` or `.jsonl.zst`, streamed. */
export function readRolloutLines(file: string, options: JsonlOptions = {}): AsyncGenerator<JsonlRecord> {
  if (file.endsWith('.zst')) return readJsonlChunks(zstdChunks(file, options.chunkSize), file, options);
  return readJsonl(file, options);
}
