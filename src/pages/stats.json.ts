import type { APIRoute } from 'astro';
import { siteIndexes } from '../site/collections.ts';

export const GET: APIRoute = async () => {
  const { stats } = await siteIndexes();
  return new Response(`${JSON.stringify(stats, null, 2)}\n`, { headers: { 'Content-Type': 'application/json' } });
};
