import type { APIRoute, GetStaticPaths } from 'astro';
import { dayMarkdown } from '../../report/markdown.ts';
import { dayReport } from '../../report/reports.ts';
import { siteIndexes } from '../../site/collections.ts';
import { siteOptions } from '../../site/data.ts';
import { markdownLinkBase } from '../../site/format.ts';

export const getStaticPaths: GetStaticPaths = async () => {
  const { days } = await siteIndexes();
  return [...days.keys()].map((day) => ({ params: { day } }));
};

export const GET: APIRoute = async ({ params }) => {
  const { days, timeZone } = await siteIndexes();
  const report = dayReport(days, params.day!, timeZone);
  return new Response(dayMarkdown(report, { linkBase: markdownLinkBase(siteOptions().siteUrl) }), {
    headers: { 'Content-Type': 'text/markdown; charset=utf-8' },
  });
};
