import { Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';

/**
 * The gzip level of the site's compressed files (a session's Markdown, the search box's texts): on their
 * text, level 4 takes ~40 % of the default level's time for ~11 % more bytes, and a first build writes
 * hundreds of MB of them.
 */
const SITE_GZIP_LEVEL = 4;

export function gzipForSite(bytes: string | Uint8Array): Buffer<ArrayBuffer> {
  return gzipSync(bytes, { level: SITE_GZIP_LEVEL });
}

/** Bytes of text encoded at a time by gzipTextsForSite. */
const TEXT_BUFFER_BYTES = 64 * 1024;

/**
 * Texts, one after another, gzipped as the site's files are, as a stream. They are encoded into one buffer, used
 * again once zlib has taken what it held: a buffer per piece, each a few KB of heap holding its bytes outside it,
 * left ~240 MB of them for the collector while 400 MB of Markdown went through (a 2 GB session's export). Node writes
 * no time into the header: the same texts make the same file.
 */
export function gzipTextsForSite(texts: Iterable<string>): ReadableStream<Uint8Array> {
  const gzip = createGzip({ level: SITE_GZIP_LEVEL });
  const buffer = Buffer.allocUnsafe(TEXT_BUFFER_BYTES);
  const write = (bytes: Buffer) =>
    new Promise<void>((resolve, reject) => gzip.write(bytes, (error) => (error ? reject(error) : resolve())));
  void (async () => {
    let used = 0;
    for (const text of texts) {
      let from = 0;
      while (from < text.length) {
        // At most a third of the room in characters (a UTF-16 unit is 3 bytes of UTF-8 at most), and never
        // between the two halves of a surrogate pair, which apart would each become a replacement character.
        let to = Math.min(text.length, from + Math.floor((TEXT_BUFFER_BYTES - used) / 3));
        if (to < text.length && isHighSurrogate(text.charCodeAt(to - 1))) to -= 1;
        if (to <= from) {
          await write(buffer.subarray(0, used));
          used = 0;
          continue;
        }
        used += buffer.write(text.slice(from, to), used);
        from = to;
        if (TEXT_BUFFER_BYTES - used < 12) {
          await write(buffer.subarray(0, used));
          used = 0;
        }
      }
    }
    if (used > 0) await write(buffer.subarray(0, used));
    gzip.end();
  })().catch((error: unknown) => gzip.destroy(error as Error));
  return Readable.toWeb(gzip) as ReadableStream<Uint8Array>;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
