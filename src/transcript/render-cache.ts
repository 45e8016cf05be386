import { hash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** Bump when the Markdown renderer or the sanitizer's allow-list changes: cached HTML is then re-made. */
export const RENDER_VERSION = 4;

export function renderKey(markdown: string): string {
  return hash('sha256', `${RENDER_VERSION}\u0000${markdown}`, 'base64url');
}

/**
 * Sanitized HTML by content, in `<data>/cache/render.sqlite`, of the Markdown that needs DOMPurify (raw
 * HTML, images, odd links): each distinct text is sanitized once, ever. Markdown that marked renders
 * safely on its own costs less to render again than to look up, so it is not kept. Derived data:
 * deleting the file only costs a re-render.
 */
export class RenderCache {
  private readonly db: Database.Database;
  private readonly getStatement: Database.Statement<[string], { html: string }>;
  private readonly putStatement: Database.Statement<[string, string]>;

  constructor(dataDir: string, options: { readonly?: boolean } = {}) {
    const file = path.join(dataDir, 'cache', 'render.sqlite');
    if (!options.readonly) mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file, { readonly: options.readonly === true, fileMustExist: options.readonly === true });
    if (!options.readonly) {
      // A cache: losing the last writes in a crash costs a re-render, so no fsync per batch. WAL lets the
      // render workers read while this writes.
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = OFF');
      // HTML of another renderer version is never asked for again: start afresh rather than keep it forever.
      if (this.db.pragma('user_version', { simple: true }) !== RENDER_VERSION) {
        this.db.exec('DROP TABLE IF EXISTS html; DROP TABLE IF EXISTS rendered_bodies');
        this.db.pragma(`user_version = ${RENDER_VERSION}`);
      }
      this.db.exec(
        'CREATE TABLE IF NOT EXISTS html (key TEXT PRIMARY KEY, html TEXT NOT NULL) WITHOUT ROWID;' +
          'CREATE TABLE IF NOT EXISTS rendered_bodies (body TEXT PRIMARY KEY, stamp TEXT NOT NULL) WITHOUT ROWID',
      );
    }
    this.getStatement = this.db.prepare('SELECT html FROM html WHERE key = ?');
    this.putStatement = this.db.prepare('INSERT OR REPLACE INTO html (key, html) VALUES (?, ?)');
  }

  get(markdown: string): string | undefined {
    return this.getStatement.get(renderKey(markdown))?.html;
  }

  putMany(entries: [key: string, html: string][]): void {
    this.db.transaction(() => {
      for (const [key, html] of entries) this.putStatement.run(key, html);
    })();
  }

  /** Session bodies whose every segment is in the cache, with the stamp of the body file then. */
  renderedBodies(): Map<string, string> {
    const rows = this.db.prepare('SELECT body, stamp FROM rendered_bodies').all() as { body: string; stamp: string }[];
    return new Map(rows.map((r) => [r.body, r.stamp]));
  }

  markRendered(body: string, stamp: string): void {
    this.db.prepare('INSERT OR REPLACE INTO rendered_bodies (body, stamp) VALUES (?, ?)').run(body, stamp);
  }

  close(): void {
    this.db.close();
  }
}
