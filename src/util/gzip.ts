import { Duplex } from 'node:stream';
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

/** A stream's bytes gzipped as the site's files are. Node writes no time into the header: the same bytes make
 * the same file. */
export function gzipStreamForSite(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  return body.pipeThrough(
    Duplex.toWeb(createGzip({ level: SITE_GZIP_LEVEL })) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>,
  );
}
