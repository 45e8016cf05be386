import type { APIRoute, GetStaticPaths } from 'astro';
import { idToPathSegment } from '../../../../model/ids.ts';
import type { SessionSummary } from '../../../../model/session.ts';
import { sessionMarkdown, sessionPageMarkdown } from '../../../../transcript/session-markdown.ts';
import { siteIndexes } from '../../../collections.ts';
import { keptPageMarkdown, loadSessionPageText, sessionTextWriter } from '../../../data.ts';
import { pagePlace } from '../../../../transcript/session-view.ts';
import { shareSettings } from '../../../../privacy/share-mode.ts';
import { gzipForSite, gzipTextsForSite } from '../../../../util/gzip.ts';

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

/** Markdown up to this many characters is gzipped in one call (nearly every session's). */
const ONE_CALL_CHARS = 2 * 1024 * 1024;

export const GET: APIRoute = async ({ props }) => {
  const summary = (props as { summary: SessionSummary }).summary;
  const { timeZone } = await siteIndexes();
  const starts = summary.pageStarts ?? [0];
  // The site search's texts of a session whose body changed are gathered here, where every page is read.
  const texts = sessionTextWriter(summary);
  // Each page's Markdown (and texts) as its page kept them when rendered just before, or else from the page read
  // again.
  function* pages() {
    for (let page = 1; page <= starts.length; page++) {
      const kept = keptPageMarkdown(summary, page, timeZone);
      if (kept && (!texts || kept.rows)) {
        if (kept.rows) texts?.addPage(kept.rows);
        yield kept.markdown;
        continue;
      }
      const { content, rows } = loadSessionPageText(summary, page, texts !== undefined);
      if (rows) texts?.addPage(rows);
      yield (
        kept?.markdown ??
        sessionPageMarkdown(content, pagePlace(starts, summary.pagePrompts, page), {
          timeZone,
        })
      );
    }
    texts?.finish();
  }
  const pieces = sessionMarkdown(summary, pages(), { timeZone });
  // Most sessions' Markdown is a few MB at most: gzipped in one call, which costs half of streaming it through
  // zlib. A bigger one (a worker's heap is bounded) is streamed from where that stopped.
  const head: string[] = [];
  let chars = 0;
  let next = pieces.next();
  for (; !next.done; next = pieces.next()) {
    head.push(next.value);
    chars += next.value.length;
    if (chars >= ONE_CALL_CHARS) break;
  }
  const headers = { 'Content-Type': 'application/gzip' };
  if (next.done) return new Response(gzipForSite(head.join('')), { headers });
  function* all() {
    yield* head;
    for (let piece = pieces.next(); !piece.done; piece = pieces.next()) yield piece.value;
  }
  return new Response(gzipTextsForSite(all()), { headers });
};
