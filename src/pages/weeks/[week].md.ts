import type { APIRoute, GetStaticPaths } from 'astro';
import { periodMarkdown } from '../../report/markdown.ts';
import { weekReport } from '../../report/reports.ts';
import { siteIndexes } from '../../site/collections.ts';
import { siteOptions } from '../../site/data.ts';
import { markdownLinkBase } from '../../site/format.ts';

export const getStaticPaths: GetStaticPaths = async () => {
  const { weeks } = await siteIndexes();
  return weeks.map((week) => ({ params: { week } }));
};

export const GET: APIRoute = async ({ params }) => {
  const { days, timeZone, weekStart } = await siteIndexes();
  const report = weekReport(days, params.week!, timeZone, weekStart);
  return new Response(periodMarkdown(report, { linkBase: markdownLinkBase(siteOptions().siteUrl) }), {
    headers: { 'Content-Type': 'text/markdown; charset=utf-8' },
  });
};
