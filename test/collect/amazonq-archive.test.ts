import { promises as fs } from 'node:fs';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { createQDatabase, loadQFixture, putConversation, Q_FILES, Q_IDS } from '../helpers/amazonq-db.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';

describe('Amazon Q archive, end to end', () => {
  it('keeps the conversation a new `q chat` overwrote: both are on the built site', async () => {
    const home = await tempDir('q-home');
    const db = path.join(home, '.local', 'share', 'amazon-q', 'data.sqlite3');
    const webapp = '/home/alice/work/webapp';
    await createQDatabase(db, { conversations: [{ key: webapp, state: loadQFixture(Q_FILES.A) }] });
    const data = path.join(home, 'data');
    const args = ['--home', home, '--data', data, '--tz', 'UTC'];

    const first = await runCli(['collect', ...args.slice(0, 4)]);
    expect(first.stderr).toMatch(/^Amazon Q \/ Kiro CLI: .*data\.sqlite3: 1 session$/m);

    // A new `q chat` in the same directory replaces the row with a new conversation_id.
    putConversation(db, webapp, loadQFixture(Q_FILES.E), new Date('2026-03-21T09:00:00Z'));
    const out = path.join(home, 'dist');
    const build = await runCli(['build', ...args, '--out', out]);
    expect(build.code).toBe(0);
    expect(build.stderr).toContain('2 sessions (1 kept from the archive, their source files are gone)');

    const pages = (await fs.readdir(path.join(out, 'sessions', 'amazon-q'))).sort();
    expect(pages).toEqual([Q_IDS.A, Q_IDS.E]);
    const old = new JSDOM(await fs.readFile(path.join(out, 'sessions', 'amazon-q', Q_IDS.A, 'index.html'), 'utf8'))
      .window.document;
    expect(old.querySelector('h1')!.textContent).toBe('Why does the login page redirect twice after sign-in?');
    expect(old.querySelector('.callout')!.textContent).toContain('Amazon Q has replaced this conversation');
    const fresh = new JSDOM(await fs.readFile(path.join(out, 'sessions', 'amazon-q', Q_IDS.E, 'index.html'), 'utf8'))
      .window.document;
    expect(fresh.querySelector('h1')!.textContent).toBe('Add a dark mode toggle to the header');
    expect(fresh.querySelector('.callout')).toBeNull();
  });
});
