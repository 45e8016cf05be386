import { defineCollection, z } from 'astro:content';
import { loadHistoryPrompts, loadSummaries } from './data.ts';
import { SOURCE_IDS } from '../model/message.ts';

// Collections hold only small records (session summaries, prompt history); message bodies are
// separate files each session page reads while it renders (Astro's data store does not scale to GBs).

const tokens = z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheCreation: z.number() });

const sessions = defineCollection({
  loader: async () => loadSummaries().map((s) => ({ ...s, id: s.id })),
  schema: z
    .object({
      source: z.enum(SOURCE_IDS),
      sessionId: z.string(),
      title: z.string(),
      cwd: z.string(),
      project: z.string(),
      startedAt: z.string(),
      endedAt: z.string(),
      sourcePresent: z.boolean(),
      body: z.string(),
      stats: z
        .object({
          entries: z.number(),
          toolRounds: z.number(),
          toolUses: z.number(),
          prompts: z.number(),
          pattern: z.enum(['simple', 'single_tool', 'multi_tool', 'incomplete']),
          tokens,
        })
        .passthrough(),
    })
    .passthrough(),
});

const prompts = defineCollection({
  loader: async () => loadHistoryPrompts().map((p, i) => ({ ...p, id: `${p.source}-${i}` })),
  schema: z
    .object({
      source: z.enum(SOURCE_IDS),
      timestamp: z.string(),
      text: z.string(),
      project: z.string().optional(),
      sessionId: z.string().optional(),
    })
    .passthrough(),
});

export const collections = { sessions, prompts };
