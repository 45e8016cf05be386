import { promises as fs } from 'node:fs';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { describe, expect, inject, it } from 'vitest';
import { formatUsd, sessionsCost } from '../../src/insights/cost.ts';
import { PRICES } from '../../src/insights/prices.ts';
import { projectSlug } from '../../src/model/project.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { SESSION } from '../helpers/paths.ts';

// The site built once by test/global-setup.ts over fixtures/home, --tz Asia/Tokyo.
const site = inject('site');

async function page(route: string): Promise<Document> {
  return new JSDOM(await fs.readFile(path.join(site.outDir, route, 'index.html'), 'utf8')).window.document;
}
const text = (doc: Document, selector: string) => doc.querySelector(selector)?.textContent?.replace(/\s+/g, ' ').trim();

async function summaries(): Promise<SessionSummary[]> {
  return JSON.parse(await fs.readFile(path.join(site.dataDir, 'index', 'sessions.json'), 'utf8')) as SessionSummary[];
}

describe('cost on the fixture site', () => {
  it('stats.json has the cost block, with unpriced models and sources without token counts named', async () => {
    const stats = JSON.parse(await fs.readFile(path.join(site.outDir, 'stats.json'), 'utf8'));
    const all = await summaries();
    expect(stats.cost).toMatchObject({ currency: 'USD', pricesAsOf: PRICES.asOf, label: 'API-equivalent estimate' });
    expect(stats.cost.total).toBeCloseTo(sessionsCost(all).usd, 5);
    expect(stats.cost.total).toBeGreaterThan(0);
    expect(Object.keys(stats.cost.bySource).sort()).toEqual(['claude-code', 'codex']);
    expect(stats.cost.byModel['claude-opus-4-6']).toBeGreaterThan(0);
    // gpt-5.5 has no price in the table: listed, never guessed.
    expect(Object.keys(stats.cost.unpriced)).toContain('gpt-5.5');
    expect(stats.cost.byModel['gpt-5.5']).toBeUndefined();
    expect(stats.cost.noTokenCounts).toEqual(['amazon-q']);
    const days = Object.keys(stats.cost.byDay);
    expect(days.length).toBeGreaterThan(0);
    const sum = Object.values(stats.cost.byDay as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(stats.cost.total, 4);
  });

  it('a session page shows its estimate, labelled; an Amazon Q session says it has no token counts', async () => {
    const all = await summaries();
    const a = all.find((s) => s.sessionId === SESSION.A)!;
    // Session A: claude-opus-4-6 with 1-hour cache writes (fixtures/README.md).
    expect(a.stats.tokensByModel?.['claude-opus-4-6']?.cacheCreation1h).toBeGreaterThan(0);
    const doc = await page(`sessions/claude-code/${SESSION.A}`);
    expect(text(doc, '.insights .cost')).toContain(`${formatUsd(sessionsCost([a]).usd)} API-equivalent estimate`);
    const q = all.find((s) => s.source === 'amazon-q')!;
    const qDoc = await page(`sessions/amazon-q/${q.sessionId}`);
    expect(text(qDoc, '.insights .cost')).toContain('Amazon Q keeps no token counts');
    expect(text(qDoc, '.insights .cost')).not.toContain('$');
  });

  it('day, week and project pages and the stats page carry the estimate', async () => {
    for (const route of ['days/2026-03-02', 'weeks/2026-W10', `projects/${projectSlug('/home/alice/work/webapp')}`]) {
      const doc = await page(route);
      expect(text(doc, '.insights .cost'), route).toMatch(/\$[\d.,]+ API-equivalent estimate/);
    }
    const stats = await page('stats');
    expect(text(stats, '#cost')).toContain('API-equivalent estimate');
    const md = await fs.readFile(path.join(site.outDir, 'days', '2026-03-02.md'), 'utf8');
    expect(md).toMatch(/^- Cost: \$[\d.,]+ \(API-equivalent estimate, prices as of \d{4}-\d{2}-\d{2}\)/m);
  });
});
