import type { APIRoute, GetStaticPaths } from 'astro';
import { dayMarkdown } from '../../../report/markdown.ts';
import { dayRoutes, type DayRouteProps, siteDayReport } from '../../collections.ts';
import { siteOptions } from '../../data.ts';
import { markdownLinkBase } from '../../format.ts';

// The day's inputs are the route's props, so the site build writes it again only when they changed.
export const getStaticPaths: GetStaticPaths = dayRoutes;

export const GET: APIRoute = async ({ props }) => {
  const { day } = props as DayRouteProps;
  const report = await siteDayReport(day.day);
  return new Response(dayMarkdown(report, { linkBase: markdownLinkBase(siteOptions().siteUrl) }), {
    headers: { 'Content-Type': 'text/markdown; charset=utf-8' },
  });
};
