import type { APIRoute, GetStaticPaths } from 'astro';
import { dayMarkdown } from '../../report/markdown.ts';
import { type DayReport, dayReport } from '../../report/reports.ts';
import { siteIndexes } from '../../site/collections.ts';
import { siteOptions } from '../../site/data.ts';
import { markdownLinkBase } from '../../site/format.ts';

// The report is the route's props, so the site build writes it again only when it changed.
export const getStaticPaths: GetStaticPaths = async () => {
  const { days, timeZone } = await siteIndexes();
  return [...days.keys()].map((day) => ({ params: { day }, props: { report: dayReport(days, day, timeZone) } }));
};

export const GET: APIRoute = ({ props }) => {
  const { report } = props as { report: DayReport };
  return new Response(dayMarkdown(report, { linkBase: markdownLinkBase(siteOptions().siteUrl) }), {
    headers: { 'Content-Type': 'text/markdown; charset=utf-8' },
  });
};
