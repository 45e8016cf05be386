import type { APIRoute } from 'astro';
import { costJson } from '../../insights/cost.ts';
import { siteIndexes } from '../collections.ts';

export const GET: APIRoute = async () => {
  const { stats, sessions, timeZone } = await siteIndexes();
  const withCost = { ...stats, cost: costJson(sessions, timeZone) };
  return new Response(`${JSON.stringify(withCost, null, 2)}\n`, { headers: { 'Content-Type': 'application/json' } });
};
