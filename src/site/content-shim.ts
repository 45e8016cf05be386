import type { HistoryPrompt, SessionSummary } from '../model/session.ts';
import { loadHistoryPrompts, loadSummaries } from './data.ts';

/** `astro:content` for session pages rendered outside Astro's build (src/site/build/): the same two
 * collections, read straight from the data directory like the content loaders do. */
export async function getCollection(
  name: 'sessions' | 'prompts',
): Promise<{ id: string; data: SessionSummary | HistoryPrompt }[]> {
  if (name === 'sessions') return loadSummaries().map((s) => ({ id: s.id, data: s }));
  return loadHistoryPrompts().map((p, i) => ({ id: `${p.source}-${i}`, data: p }));
}
