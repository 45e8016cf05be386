import { cutDeeperThan } from '../../model/message-schema.ts';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../util/jsonl.ts';
import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
import { candidateExports, locateAmazonQ } from './paths.ts';
import { latestDataTime, normalizeConversation } from './normalize.ts';
import { QReadError, readDatabase, readExport, type ConversationRow, type ReadDatabaseOptions } from './reader.ts';
import type { QConversationState } from './schema.ts';

/**
 * Amazon Q Developer CLI and Kiro CLI (FORMATS.md §3): `data.sqlite3` rows (`conversations`: one per directory,
 * overwritten by every new `q chat` there; Kiro's `conversations_v2`: one per conversation) and `/save` exports.
 * Each conversation is yielded once, from its freshest copy; the collector's archive keeps every
 * `conversation_id` ever seen, so conversations Q overwrites stay on the site.
 */
export function createAmazonQSource(readOptions: ReadDatabaseOptions = {}): Source {
  return {
    id: 'amazon-q',
    label: 'Amazon Q / Kiro CLI',
    locate: locateAmazonQ,
    read: (location, ctx) => readAmazonQ(location, ctx, readOptions),
  };
}

export const amazonQ: Source = createAmazonQSource();

interface Copy {
  row: ConversationRow;
  freshness: number;
  size: number;
}

async function* readAmazonQ(
  location: SourceLocation,
  ctx: SourceContext,
  readOptions: ReadDatabaseOptions,
): AsyncGenerator<SourceItem> {
  // Re-read only when a database (or export) changed since the archive's copies were made.
  const unchanged = ctx.unchanged?.(location.found);
  if (unchanged) {
    yield { kind: 'unchanged', sessionIds: unchanged };
    return;
  }
  const exports = new Set(candidateExports(ctx));
  const rows: ConversationRow[] = [];
  for (const file of location.found) await ctx.stamp?.(file);
  for (const file of location.found) {
    try {
      if (exports.has(file)) {
        rows.push(await readExport(file));
        continue;
      }
      const contents = await readDatabase(file, readOptions);
      if (contents.tables.length === 0) {
        ctx.warn({
          file,
          message: 'no conversations table (Q builds before May 2025 kept no chat history here); nothing to read',
        });
      }
      rows.push(...contents.rows);
    } catch (error) {
      const detail = error instanceof QReadError ? error.message : `could not read (${(error as Error).message})`;
      ctx.unavailable?.(file);
      ctx.warn({ file, message: `${detail}; skipped this run, conversations collected earlier stay in the archive` });
    }
  }

  // One conversation can be stored several times: a `/save` export of a row, a Kiro database next to the Q one
  // it was migrated from, a v1 row copied into `conversations_v2`. The freshest copy wins.
  const groups = new Map<string, Copy[]>();
  for (const row of rows) {
    const state = parseRow(row, ctx);
    if (!state) continue;
    const conversationId =
      row.conversationId ?? (typeof state.conversation_id === 'string' ? state.conversation_id : undefined);
    if (!conversationId) {
      ctx.warn({ file: row.file, message: `${describeRow(row)} has no conversation_id; skipped` });
      continue;
    }
    const freshness = Math.max(row.updatedAt ?? 0, latestDataTime(state) ?? 0) || row.fileMtimeMs;
    const size = (Array.isArray(state.history) ? state.history.length : 0) + (state.transcript?.length ?? 0);
    const copies = groups.get(conversationId) ?? [];
    copies.push({ row, freshness, size });
    groups.set(conversationId, copies);
  }

  for (const [conversationId, copies] of groups) {
    const best = copies.reduce((a, b) =>
      b.freshness > a.freshness || (b.freshness === a.freshness && b.size > a.size) ? b : a,
    );
    const state = parseRow(best.row, ctx, true);
    if (!state) continue;
    const cwd = copies.find((c) => c.row.key)?.row.key;
    const archived = await ctx.loadArchived?.(conversationId);
    let session: ReturnType<typeof normalizeConversation>;
    // A conversation the normalizer cannot handle costs that conversation only.
    try {
      session = normalizeConversation({
        state,
        row: best.row,
        conversationId,
        cwd,
        archived: archived?.source === 'amazon-q' ? archived : undefined,
      });
    } catch (error) {
      ctx.unavailable?.(best.row.file);
      ctx.warn({
        file: best.row.file,
        message: `${describeRow(best.row)} (conversation ${JSON.stringify(conversationId)}) not understood (${
          error instanceof Error ? `${error.name}: ${error.message}` : String(error)
        }); skipped`,
      });
      continue;
    }
    if (!session) continue;
    const others = [...new Set(copies.filter((c) => c !== best).map((c) => describeCopy(c.row)))];
    if (others.length > 0)
      session.warnings.push(`also stored in ${others.join(', ')} (an older or equal copy; not read)`);
    yield { kind: 'session', session };
  }
}

function parseRow(row: ConversationRow, ctx: SourceContext, quiet = false): QConversationState | undefined {
  try {
    const value = JSON.parse(row.value.toString('utf8')) as unknown;
    if (nestedDeeperThan(row.value, value, MAX_JSON_DEPTH)) {
      // One deep tool argument costs that argument, not the conversation.
      cutDeeperThan(value, MAX_JSON_DEPTH);
      if (!quiet)
        ctx.warn({
          file: row.file,
          message: `${describeRow(row)} is nested more than ${MAX_JSON_DEPTH} levels deep; the deeper part replaced with a marker`,
        });
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as QConversationState;
    if (!quiet) ctx.warn({ file: row.file, message: `${describeRow(row)} is not a ConversationState object; skipped` });
  } catch (error) {
    if (!quiet)
      ctx.warn({
        file: row.file,
        message: `${describeRow(row)} is not valid JSON (${(error as Error).message}); skipped`,
      });
  }
  return undefined;
}

function describeCopy(row: ConversationRow): string {
  return row.kind === 'json' ? row.file : `${row.file} (${row.table})`;
}

function describeRow(row: ConversationRow): string {
  if (row.kind === 'json') return 'the file';
  return `${row.table} row ${row.rowIndex}${row.key ? ` (${row.key})` : ''}`;
}
