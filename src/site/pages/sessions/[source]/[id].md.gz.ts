import type { APIRoute, GetStaticPaths } from 'astro';
import { idToPathSegment } from '../../../../model/ids.ts';
import type { SessionSummary } from '../../../../model/session.ts';
import { sessionMarkdown, sessionPageMarkdown } from '../../../../transcript/session-markdown.ts';
import { siteIndexes } from '../../../collections.ts';
import { keptPageMarkdown, loadSessionPageText } from '../../../data.ts';
import { pagePlace } from '../../../../transcript/session-view.ts';
import { shareSettings } from '../../../../privacy/share-mode.ts';
import { gzipForSite, gzipStreamForSite } from '../../../../util/gzip.ts';

/**
 * Each session as Markdown, beside its page, gzipped: `/sessions/<source>/<id>.md.gz`. The Markdown is a quarter
 * of a plain site's bytes and a fifth of that gzipped; the page's link saves it as `<id>.md`, decompressed in
 * the browser (public/session.js), and without script it is the `.gz` file.
 */
export const getStaticPaths: GetStaticPaths = async () => {
  if (shareSettings()?.single) return [];
  const { sessions } = await siteIndexes();
  return sessions.map((summary) => ({
    params: { source: summary.source, id: idToPathSegment(summary.sessionId) },
    props: { summary },
  }));
};

/** Markdown up to this many bytes is gzipped in one call (nearly every session's). */
const ONE_CALL_BYTES = 2 * 1024 * 1024;
/** Pieces are joined into strings of about this many characters before they are encoded: a stream of many small
 * chunks costs more to encode and to read back than the text itself, and a string much longer would be copied
 * whole, to two bytes a character, first (see sessionMarkdown). */
const BATCH_CHARS = 16 * 1024;

export const GET: APIRoute = async ({ props }) => {
  const summary = (props as { summary: SessionSummary }).summary;
  const { timeZone } = await siteIndexes();
  const starts = summary.pageStarts ?? [0];
  // Each page's Markdown as its page kept it when rendered just before, or else from the page read again.
  function* pages() {
    for (let page = 1; page <= starts.length; page++)
      yield (
        keptPageMarkdown(summary, page, timeZone) ??
        sessionPageMarkdown(loadSessionPageText(summary, page), pagePlace(starts, summary.pagePrompts, page), {
          timeZone,
        })
      );
  }
  const batches = encodedBatches(sessionMarkdown(summary, pages(), { timeZone }));
  // Most sessions' Markdown is a few MB at most: gzipped in one call, which costs half of streaming it through
  // zlib. A bigger one (a worker's heap is bounded) is streamed from where that stopped.
  const head: Buffer[] = [];
  let bytes = 0;
  let next = batches.next();
  for (; !next.done; next = batches.next()) {
    head.push(next.value);
    bytes += next.value.length;
    if (bytes >= ONE_CALL_BYTES) break;
  }
  const headers = { 'Content-Type': 'application/gzip' };
  if (next.done) return new Response(gzipForSite(Buffer.concat(head, bytes)), { headers });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(Buffer.concat(head, bytes));
    },
    pull(controller) {
      next = batches.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
  return new Response(gzipStreamForSite(body), { headers });
};

/** The pieces' UTF-8, in batches of about BATCH_CHARS characters (a bigger piece alone). */
function* encodedBatches(pieces: Iterable<string>): Generator<Buffer> {
  let batch = '';
  for (const piece of pieces) {
    if (batch.length + piece.length > BATCH_CHARS && batch) {
      yield Buffer.from(batch);
      batch = '';
    }
    batch += piece;
  }
  if (batch) yield Buffer.from(batch);
}
