import type { APIRoute, GetStaticPaths } from 'astro';
import { weekMarkdown } from '../../report/markdown.ts';
import { weekReport } from '../../report/reports.ts';
import { siteIndexes } from '../../site/collections.ts';

export const getStaticPaths: GetStaticPaths = async () => {
  const { weeks } = await siteIndexes();
  return weeks.map((week) => ({ params: { week } }));
};

export const GET: APIRoute = async ({ params }) => {
  const { days, timeZone, weekStart } = await siteIndexes();
  const report = weekReport(days, params.week!, timeZone, weekStart);
  return new Response(weekMarkdown(report, { linkBase: import.meta.env.BASE_URL.replace(/\/$/, '') }), {
    headers: { 'Content-Type': 'text/markdown; charset=utf-8' },
  });
};
