import type { APIRoute, GetStaticPaths } from 'astro';
import { periodMarkdown } from '../../report/markdown.ts';
import type { PeriodReport } from '../../report/reports.ts';
import { siteIndexes, siteWeekReport } from '../../site/collections.ts';
import { siteOptions } from '../../site/data.ts';
import { markdownLinkBase } from '../../site/format.ts';

// The report is the route's props, so the site build writes it again only when it changed.
export const getStaticPaths: GetStaticPaths = async () => {
  const { weeks } = await siteIndexes();
  return Promise.all(weeks.map(async (week) => ({ params: { week }, props: { report: await siteWeekReport(week) } })));
};

export const GET: APIRoute = ({ props }) => {
  const { report } = props as { report: PeriodReport };
  return new Response(periodMarkdown(report, { linkBase: markdownLinkBase(siteOptions().siteUrl) }), {
    headers: { 'Content-Type': 'text/markdown; charset=utf-8' },
  });
};
