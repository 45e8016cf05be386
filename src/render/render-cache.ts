import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** Bump when the Markdown renderer or the sanitizer's allow-list changes: cached HTML is then re-made. */
export const RENDER_VERSION = 2;

export function renderKey(markdown: string): string {
  return createHash('sha256').update(`${RENDER_VERSION}\u0000${markdown}`).digest('base64url');
}

/**
 * Sanitized HTML by content, in `<data>/cache/render.sqlite`: each distinct text is rendered (and run through
 * DOMPurify) once, ever. Derived data: deleting the file only costs a re-render.
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
      this.db.exec('CREATE TABLE IF NOT EXISTS html (key TEXT PRIMARY KEY, html TEXT NOT NULL) WITHOUT ROWID');
    }
    this.getStatement = this.db.prepare('SELECT html FROM html WHERE key = ?');
    this.putStatement = this.db.prepare('INSERT OR REPLACE INTO html (key, html) VALUES (?, ?)');
  }

  get(key: string): string | undefined {
    return this.getStatement.get(key)?.html;
  }

  putMany(entries: [key: string, html: string][]): void {
    this.db.transaction(() => {
      for (const [key, html] of entries) this.putStatement.run(key, html);
    })();
  }

  close(): void {
    this.db.close();
  }
}
