import type { APIRoute, GetStaticPaths } from 'astro';
import { periodMarkdown } from '../../../report/markdown.ts';
import { siteWeekReport, weekRoutes, type WeekRouteProps } from '../../collections.ts';
import { siteOptions } from '../../data.ts';
import { markdownLinkBase } from '../../format.ts';

// The week's inputs are the route's props, so the site build writes it again only when they changed.
export const getStaticPaths: GetStaticPaths = weekRoutes;

export const GET: APIRoute = async ({ props }) => {
  const report = await siteWeekReport((props as WeekRouteProps).week);
  return new Response(periodMarkdown(report, { linkBase: markdownLinkBase(siteOptions().siteUrl) }), {
    headers: { 'Content-Type': 'text/markdown; charset=utf-8' },
  });
};
